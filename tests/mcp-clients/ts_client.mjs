// vercy mcp under the official TypeScript MCP SDK's client (@modelcontextprotocol/sdk 1.32).
//
// Usage: node ts_client.mjs VERCY_BINARY REPOSITORY_ROOT
//
// The same calls as python_client.py (cases.json, and arguments made from each tool's schema
// by the rules of cases.py): the SDK validates every structuredContent against the tool's
// outputSchema in callTool (it throws otherwise, on errors too), and this script validates it
// again with the SDK's Ajv validator. Bad arguments must be an isError result the model can
// read (protocol 2025-11-25). Ends with "N passed, N failed"; exits 1 on any failure.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const [vercy, root] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
let passed = 0;
const failed = [];
const expect = (ok, what) => {
  if (ok) passed += 1;
  else {
    failed.push(what);
    console.error(`FAIL: ${what}`);
  }
};

const expand = (v) => {
  if (typeof v === "string" && v.startsWith("@")) return readFileSync(join(root, v.slice(1)), "utf8");
  if (Array.isArray(v)) return v.map(expand);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x)]));
  return v;
};
const cases = expand(JSON.parse(readFileSync(join(here, "cases.json"), "utf8")));

// cases.py's rules
const sample = (spec) =>
  "enum" in spec
    ? spec.enum[0]
    : ({ string: "x", integer: spec.minimum ?? 1, number: 1, boolean: true, array: [], object: {} }[spec.type] ?? "x");
const WRONG = { string: 17, integer: "one", number: "one", boolean: "yes", array: "x", object: "x" };
const base = (schema) =>
  Object.fromEntries((schema.required ?? []).map((k) => [k, sample(schema.properties[k])]));
const validArguments = (name, schema) => cases.valid[name] ?? [base(schema)];
const badArguments = (schema) => {
  const bad = [{ ...base(schema), no_such_argument: 1 }];
  for (const [k, spec] of Object.entries(schema.properties ?? {})) {
    if (spec.type in WRONG) bad.push({ ...base(schema), [k]: WRONG[spec.type] });
  }
  return bad;
};
const typeLists = (v, at, out) => {
  if (Array.isArray(v)) v.forEach((x) => typeLists(x, at, out));
  else if (v && typeof v === "object") {
    if (Array.isArray(v.type)) out.push(`${at}: type ${JSON.stringify(v.type)}`);
    for (const [k, x] of Object.entries(v)) typeLists(x, `${at}.${k}`, out);
  }
  return out;
};

const client = new Client({ name: "vercy-ts-sdk-test", version: "1.0.0" });
const transport = new StdioClientTransport({ command: vercy, args: ["mcp"], env: { ...process.env, NO_COLOR: "1" } });
let negotiated; // the client hands the negotiated version to a transport that takes it
transport.setProtocolVersion = (v) => {
  negotiated = v;
};
await client.connect(transport);
expect(negotiated === "2025-11-25", `protocol ${negotiated}`);
expect(client.getServerVersion()?.name === "vercy", "server info");
const ajv = new AjvJsonSchemaValidator();
const { tools } = await client.listTools();
expect(tools.length >= 4, `${tools.length} tools`);
for (const tool of tools) {
  for (const c of ["anyOf", "oneOf", "allOf", "not"]) expect(!(c in tool.inputSchema), `${tool.name}: top-level ${c}`);
  for (const p of typeLists(tool.inputSchema, `${tool.name}.inputSchema`, [])) expect(false, p);
  for (const p of typeLists(tool.outputSchema, `${tool.name}.outputSchema`, [])) expect(false, p);
  expect(tool.outputSchema?.type === "object", `${tool.name}: outputSchema`);
  const validate = ajv.getValidator(tool.outputSchema ?? {});
  let successes = 0;
  for (const args of validArguments(tool.name, tool.inputSchema)) {
    const what = `${tool.name} ${JSON.stringify(args).slice(0, 120)}`;
    let result;
    try {
      result = await client.callTool({ name: tool.name, arguments: args });
    } catch (e) {
      expect(false, `${what}: ${e.message}`);
      continue;
    }
    if (result.isError) {
      expect(!(tool.name in cases.valid), `${what}: isError ${JSON.stringify(result.content)}`);
      continue;
    }
    successes += 1;
    const check = validate(result.structuredContent);
    expect(check.valid, `${what}: ${check.errorMessage}`);
    expect(
      JSON.stringify(JSON.parse(result.content[0].text)) === JSON.stringify(result.structuredContent),
      `${what}: the text is not the structure`,
    );
  }
  if (tool.name in cases.valid) expect(successes === cases.valid[tool.name].length, `${tool.name}: ${successes} answers`);
  else if (successes === 0) console.error(`note: ${tool.name}: no call made from its schema succeeded`);
  const bad = badArguments(tool.inputSchema);
  if (tool.name in cases.unreadable) bad.push(cases.unreadable[tool.name]);
  for (const args of bad) {
    const what = `${tool.name} bad ${JSON.stringify(args).slice(0, 120)}`;
    try {
      const result = await client.callTool({ name: tool.name, arguments: args });
      expect(result.isError === true, `${what}: not isError`);
      expect(result.content?.[0]?.type === "text" && result.content[0].text.length > 0, `${what}: no text`);
    } catch (e) {
      expect(false, `${what}: ${e.message}`);
    }
  }
}
await client.close();
console.log(`typescript mcp client: ${passed} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
