/** The store contract (`_store_contract.ts`) against the folder estate, `EstateDir`. */
import { EstateDir } from "../lib/store/mod.ts";
import { storeContract } from "./_store_contract.ts";

storeContract("folder", async () => {
  const scratch = new URL("../.scratch/", import.meta.url).pathname;
  await Deno.mkdir(scratch, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: scratch, prefix: "contract-" });
  return {
    open: (options = {}) => Promise.resolve(EstateDir.open(dir, options)),
    writePrincipals: (principals) =>
      Deno.writeTextFile(
        `${dir}/principals.json`,
        JSON.stringify(principals, null, 2) + "\n",
      ),
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
});
