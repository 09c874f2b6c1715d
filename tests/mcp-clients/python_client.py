"""vercy mcp under the official Python MCP SDK's client (mcp 2.x).

Usage: python_client.py VERCY_BINARY REPOSITORY_ROOT

Lists the tools, calls each with the valid arguments of cases.json (or arguments made from its
input schema), with unreadable records, and with bad arguments made from its schema. Every
answer that is not an error must validate against the tool's outputSchema: the SDK checks
that itself (call_tool raises otherwise) and this script checks it again with jsonschema.
Bad arguments must be an isError result the model can read (protocol 2025-11-25), never an
exception. Ends with "N passed, N failed" and exits 1 on any failure.
"""

import json
import sys
from pathlib import Path

import anyio
import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).parent))
from cases import bad_arguments, check_schemas, load_cases, valid_arguments  # noqa: E402

passed = 0
failed = []


def expect(ok, what):
    global passed
    if ok:
        passed += 1
    else:
        failed.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


async def main(vercy, root):
    cases = load_cases(root)
    params = StdioServerParameters(command=vercy, args=["mcp"], env={"NO_COLOR": "1"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            expect(init.protocol_version == "2025-11-25", f"protocol {init.protocol_version}")
            tools = (await session.list_tools()).tools
            expect(len(tools) >= 4, f"{len(tools)} tools")
            for tool in tools:
                raw = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                for problem in check_schemas(raw):
                    expect(False, problem)
                output_schema = raw.get("outputSchema")
                expect(output_schema is not None, f"{tool.name}: no outputSchema")
                successes = 0
                for args in valid_arguments(tool.name, raw["inputSchema"], cases):
                    what = f"{tool.name} {json.dumps(args)[:120]}"
                    try:
                        result = await session.call_tool(tool.name, args)
                    except Exception as e:  # the SDK's own output validation raises
                        expect(False, f"{what}: {type(e).__name__}: {e}")
                        continue
                    if result.is_error:
                        expect(tool.name not in cases["valid"], f"{what}: isError {result.content}")
                        continue
                    successes += 1
                    structured = result.structured_content
                    try:
                        jsonschema.validate(structured, output_schema)
                        expect(True, what)
                    except jsonschema.ValidationError as e:
                        expect(False, f"{what}: {e.message} at {list(e.absolute_path)}")
                    text = result.content[0].text
                    expect(json.loads(text) == structured, f"{what}: the text is not the structure")
                if tool.name in cases["valid"]:
                    expect(successes == len(cases["valid"][tool.name]), f"{tool.name}: {successes} answers")
                elif successes == 0:
                    print(f"note: {tool.name}: no call made from its schema succeeded", file=sys.stderr)
                bad = bad_arguments(raw["inputSchema"])
                if tool.name in cases["unreadable"]:
                    bad.append(cases["unreadable"][tool.name])
                for args in bad:
                    what = f"{tool.name} bad {json.dumps(args)[:120]}"
                    try:
                        result = await session.call_tool(tool.name, args)
                    except Exception as e:
                        expect(False, f"{what}: {type(e).__name__}: {e}")
                        continue
                    expect(result.is_error, f"{what}: not isError")
                    expect(
                        result.content and result.content[0].type == "text" and result.content[0].text,
                        f"{what}: no text for the model",
                    )


anyio.run(main, sys.argv[1], Path(sys.argv[2]))
print(f"python mcp client: {passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
