import { classifySchemaChange as c } from "../mod.ts";
const a = { type: "object", properties: { m: { $ref: "#/$defs/p" } }, $defs: { p: { properties: { a: { type: "string" } } } } };
const b = { type: "object", properties: { m: { $ref: "#/$defs/p", additionalProperties: false } }, $defs: { p: { properties: { a: { type: "string" } } } } };
console.log(JSON.stringify(c(a, b), null, 1));
