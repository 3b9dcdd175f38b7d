/** Shared by the console tests: reading the console's live event stream. */

/**
 * Reads an event stream until `until` holds or `ms` pass, then cancels it.
 *
 * @param res The response of `GET /console/events`.
 * @param ms How long to read at most.
 * @param until When the text read so far is enough.
 * @returns The text read.
 */
export async function readEvents(
  res: Response,
  ms: number,
  until: (text: string) => boolean,
): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + ms;
  while (!until(text) && Date.now() < deadline) {
    const next = await Promise.race([
      reader.read(),
      new Promise<undefined>((r) =>
        setTimeout(() => r(undefined), Math.max(1, deadline - Date.now()))
      ),
    ]);
    if (!next || next.done) break;
    text += decoder.decode(next.value);
  }
  await reader.cancel();
  return text;
}
