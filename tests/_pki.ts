/**
 * A throwaway PKI for the identity tests, made at test time with Debian's `openssl` (P-256) in a
 * temporary folder that `remove()` deletes: nothing is checked in. Two CAs (the estate's trust
 * root and a rogue one) and the certificates the gateway's identity checks are tried against.
 */

/** A certificate and its key, PEM. */
export interface Pem {
  /** The certificate. */
  cert: string;
  /** Its private key. */
  key: string;
}

/** The test PKI. */
export interface TestPki {
  /** The estate's trust root (its certificate and key). */
  ca: Pem;
  /** A second CA, not trusted by anyone. */
  rogueCa: Pem;
  /** The payments server: `URI:spiffe://bank.example/payments,DNS:localhost,IP:127.0.0.1`, by `ca`. */
  server: Pem;
  /** The same SANs as `server`, issued by `rogueCa`. */
  rogueServer: Pem;
  /** Issued by `ca` with `URI:spiffe://bank.example/crm` (and the same DNS and IP SANs). */
  otherServer: Pem;
  /** Issued by `ca` with only `URI:spiffe://bank.example/payments` (no DNS or IP name). */
  uriOnly: Pem;
  /** Issued by `ca` with two URI SANs, `spiffe://bank.example/payments` and `…/crm`. */
  twoUris: Pem;
  /** Self-signed, `URI:spiffe://bank.example/payments,DNS:localhost,IP:127.0.0.1`: for pinning. */
  selfSigned: Pem;
  /** The gateway's client certificate, by `ca`: `URI:spiffe://bank.example/gateway`. */
  gateway: Pem;
  /** A client certificate by `rogueCa`. */
  rogueGateway: Pem;
  /** Deletes the temporary folder. */
  remove(): Promise<void>;
}

/** The SANs of the payments server's certificates. */
export const PAYMENTS_SAN = "URI:spiffe://bank.example/payments,DNS:localhost,IP:127.0.0.1";
/** The SPIFFE id of the payments server. */
export const PAYMENTS_ID = "spiffe://bank.example/payments";

async function openssl(dir: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", {
    args,
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(
      `openssl ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
}

/**
 * Makes the PKI in a new temporary folder.
 *
 * @returns The CAs and certificates, PEM, and `remove()`.
 * @throws {Error} When `openssl` fails (with its message).
 */
export async function makeTestPki(): Promise<TestPki> {
  const dir = await Deno.makeTempDir({ prefix: "tool-estate-pki-" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  const read = async (name: string): Promise<Pem> => ({
    cert: await Deno.readTextFile(`${dir}/${name}.pem`),
    key: await Deno.readTextFile(`${dir}/${name}.key`),
  });
  const ca = async (name: string): Promise<void> => {
    await openssl(dir, [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.pem`,
      "-days",
      "2",
      "-subj",
      `/CN=${name}`,
    ]);
  };
  const leaf = async (
    name: string,
    issuer: string,
    ext: string,
  ): Promise<void> => {
    await Deno.writeTextFile(`${dir}/${name}.ext`, ext + "\n");
    await openssl(dir, [
      "req",
      ...ec,
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
      "-subj",
      `/CN=${name}`,
    ]);
    await openssl(dir, [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      `${issuer}.pem`,
      "-CAkey",
      `${issuer}.key`,
      "-CAcreateserial",
      "-out",
      `${name}.pem`,
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
    ]);
  };
  try {
    await ca("ca");
    await ca("rogue-ca");
    const server = `subjectAltName=${PAYMENTS_SAN}`;
    await leaf("server", "ca", server);
    await leaf("rogue-server", "rogue-ca", server);
    await leaf(
      "other-server",
      "ca",
      "subjectAltName=URI:spiffe://bank.example/crm,DNS:localhost,IP:127.0.0.1",
    );
    await leaf("uri-only", "ca", `subjectAltName=URI:${PAYMENTS_ID}`);
    await leaf(
      "two-uris",
      "ca",
      `subjectAltName=URI:${PAYMENTS_ID},URI:spiffe://bank.example/crm,IP:127.0.0.1`,
    );
    await leaf(
      "gateway",
      "ca",
      "subjectAltName=URI:spiffe://bank.example/gateway",
    );
    await leaf(
      "rogue-gateway",
      "rogue-ca",
      "subjectAltName=URI:spiffe://bank.example/gateway",
    );
    await openssl(dir, [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "self-signed.key",
      "-out",
      "self-signed.pem",
      "-days",
      "2",
      "-subj",
      "/CN=self-signed",
      "-addext",
      server,
    ]);
    return {
      ca: await read("ca"),
      rogueCa: await read("rogue-ca"),
      server: await read("server"),
      rogueServer: await read("rogue-server"),
      otherServer: await read("other-server"),
      uriOnly: await read("uri-only"),
      twoUris: await read("two-uris"),
      selfSigned: await read("self-signed"),
      gateway: await read("gateway"),
      rogueGateway: await read("rogue-gateway"),
      remove: () => Deno.remove(dir, { recursive: true }),
    };
  } catch (e) {
    await Deno.remove(dir, { recursive: true });
    throw e;
  }
}
