"""`proclint mcp` driven by the official MCP Python SDK's stdio client.

Run by scripts/editors_e2e.sh (pytest, with PROCLINT set to the binary).
"""

import os
import pathlib

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

PROCLINT = os.environ.get("PROCLINT", "target/debug/proclint")

# An unchecked breakpoint (a finding without a fix) and an element of
# ctx.parallel.all under maxConcurrency that starts at once (parallel-thunk, a safe fix).
SOURCE = """import { defineTask } from '@a5c-ai/babysitter-sdk';

export const checkTask = defineTask('check', (args) => ({
  kind: 'shell',
  labels: ['check'],
  shell: { command: args.command },
}));

export async function process(inputs, ctx) {
  await ctx.breakpoint({ question: 'Ship “it”?', title: 'Final gate' });
  const [a] = await ctx.parallel.all([
    ctx.task(checkTask, { command: 'npm test' }, { key: 'test' }),
  ], { maxConcurrency: 2 });
  return { ok: a.success };
}
"""


def server(tmp_path: pathlib.Path) -> StdioServerParameters:
    return StdioServerParameters(command=os.path.abspath(PROCLINT), args=["mcp"], cwd=str(tmp_path))


@pytest.mark.anyio
async def test_check_fix_explain(tmp_path):
    # A project of its own, so no proclint.toml above it applies.
    (tmp_path / "package.json").write_text('{"name": "p", "type": "module"}\n')
    # A started call under `maxConcurrency` is a parallel-thunk note (with a
    # safe fix); the level set here asks for it.
    (tmp_path / "proclint.toml").write_text('[rules]\nparallel-thunk = "warning"\n')
    async with stdio_client(server(tmp_path)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "proclint"

            tools = await session.list_tools()
            assert {t.name for t in tools.tools} == {"check", "fix", "explain"}

            # By default a line per finding and the counts, in brief.
            brief = await session.call_tool(
                "check", {"source": SOURCE, "filename": "processes/ship.js"}
            )
            assert not brief.is_error, brief.content
            lines = brief.content[0].text.splitlines()
            assert len(lines) == len(brief.structured_content["findings"]) + 1, lines
            assert any(
                l.startswith("processes/ship.js:10:9: error unchecked-breakpoint:") for l in lines
            ), lines
            narrowed = await session.call_tool(
                "check",
                {"source": SOURCE, "filename": "processes/ship.js", "min_severity": "error"},
            )
            assert {f["rule"] for f in narrowed.structured_content["findings"]} == {
                "unchecked-breakpoint"
            }, narrowed.structured_content

            result = await session.call_tool(
                "check", {"source": SOURCE, "filename": "processes/ship.js", "detail": True}
            )
            assert not result.is_error, result.content
            findings = result.structured_content["findings"]
            breakpoint_ = [f for f in findings if f["rule"] == "unchecked-breakpoint"]
            assert len(breakpoint_) == 1, findings
            b = breakpoint_[0]
            assert (b["path"], b["line"], b["column"], b["severity"]) == (
                "processes/ship.js", 10, 9, "error"
            )
            assert b["doc_url"].endswith("/rules/unchecked-breakpoint.md")
            thunk = [f for f in findings if f["rule"] == "parallel-thunk"]
            assert len(thunk) == 1 and thunk[0]["fix"]["safe"], findings
            edit = thunk[0]["fix"]["edits"][0]
            assert (edit["line"], edit["column"], edit["replacement"]) == (12, 5, "() => ")

            fixed = await session.call_tool(
                "fix", {"source": SOURCE, "filename": "processes/ship.js"}
            )
            assert not fixed.is_error, fixed.content
            diff = fixed.structured_content["diff"]
            assert diff.startswith("--- a/processes/ship.js\n+++ b/processes/ship.js\n"), diff
            assert "+    () => ctx.task(checkTask" in diff, diff
            assert fixed.structured_content["applied"] == 1
            # The breakpoint's fix is unsafe: left out, and counted.
            assert fixed.structured_content["unsafe"] is False
            assert fixed.structured_content["unsafe_left_out"] == 1
            every = await session.call_tool(
                "fix", {"source": SOURCE, "filename": "processes/ship.js", "unsafe": True}
            )
            assert not every.is_error, every.content
            assert every.structured_content["applied"] == 2
            assert every.structured_content["unsafe_left_out"] == 0
            every_diff = every.structured_content["diff"]
            assert "+    () => ctx.task(checkTask" in every_diff, every_diff
            assert "+  const decision = await ctx.breakpoint(" in every_diff, every_diff
            assert "if (!decision.approved)" in every.structured_content["fixed"]

            # Paths on disk: the same file written out, fixed as a diff.
            (tmp_path / "processes").mkdir()
            (tmp_path / "processes" / "ship.js").write_text(SOURCE)
            on_disk = await session.call_tool("fix", {"paths": ["processes/ship.js"]})
            assert on_disk.structured_content["diff"] == diff
            assert (tmp_path / "processes" / "ship.js").read_text() == SOURCE

            doc = await session.call_tool("explain", {"rule": "unchecked-breakpoint"})
            assert "## What it does" in doc.content[0].text

            bad = await session.call_tool("check", {"source": SOURCE})
            assert bad.is_error and "filename" in bad.content[0].text


@pytest.fixture
def anyio_backend():
    return "asyncio"
