// Writes docs/rules.md from the rule catalog (lib/estate/rules.ts).
//   deno run --allow-write scripts/rules_doc.ts
import { rulesMarkdown } from "../lib/cli/_rules_doc.ts";

Deno.writeTextFileSync(new URL("../docs/rules.md", import.meta.url), rulesMarkdown());
