"""`proclint server` driven by a real LSP client (pytest-lsp, on pygls).

Run by scripts/editors_e2e.sh (pytest, with PROCLINT set to the binary).
"""

import asyncio
import os
import pathlib
import tempfile

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

PROCLINT = os.path.abspath(os.environ.get("PROCLINT", "target/debug/proclint"))

# Line 9 holds an unchecked breakpoint after an emoji (two UTF-16 units,
# four bytes), line 11 an element of ctx.parallel.all that starts at once
# (parallel-thunk under maxConcurrency, which has a safe fix).
SOURCE = """import { defineTask } from '@a5c-ai/babysitter-sdk';

export const checkTask = defineTask('check', (args) => ({
  kind: 'shell',
  labels: ['check'],
  shell: { command: args.command },
}));

export async function process(inputs, ctx) {
  /* 😀 */ await ctx.breakpoint({ question: 'Ship it?', title: 'Final gate' });
  const [a] = await ctx.parallel.all([
    ctx.task(checkTask, { command: 'npm test' }, { key: 'test' }),
  ], { maxConcurrency: 2 });
  return { ok: a.success };
}
"""

PROJECT = pathlib.Path(tempfile.mkdtemp(prefix="proclint-lsp-"))
(PROJECT / "package.json").write_text('{"name": "p", "type": "module"}\n')
(PROJECT / "processes").mkdir()
# A started call under `maxConcurrency` is a parallel-thunk note (with a safe
# fix); the level set here asks for it and reports it as a warning.
(PROJECT / "proclint.toml").write_text('[rules]\nparallel-thunk = "warning"\n')
MODULE = PROJECT / "processes" / "ship.js"
MODULE.write_text(SOURCE)
URI = MODULE.as_uri()


def caps(pull: bool) -> types.ClientCapabilities:
    text = types.TextDocumentClientCapabilities(
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True),
        code_action=types.CodeActionClientCapabilities(
            code_action_literal_support=types.ClientCodeActionLiteralOptions(
                code_action_kind=types.ClientCodeActionKindOptions(value_set=[types.CodeActionKind.QuickFix])
            )
        ),
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
        diagnostic=types.DiagnosticClientCapabilities() if pull else None,
    )
    return types.ClientCapabilities(text_document=text)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[PROCLINT, "server"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=caps(pull=False), root_uri=PROJECT.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


async def diagnostics(client: LanguageClient):
    await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), 30)
    return {d.code: d for d in client.diagnostics[URI]}


@pytest.mark.asyncio(loop_scope="function")
async def test_diagnostics_edits_actions_config(client: LanguageClient):
    (PROJECT / "proclint.toml").write_text('[rules]\nparallel-thunk = "warning"\n')
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=URI, language_id="javascript", version=1, text=SOURCE)
        )
    )
    found = await diagnostics(client)
    assert set(found) == {"unchecked-breakpoint", "parallel-thunk"}, found
    b = found["unchecked-breakpoint"]
    # `ctx` after "  /* 😀 */ await ": 16 characters, 19 bytes, 17 UTF-16 units.
    assert (b.range.start.line, b.range.start.character) == (9, 17), b.range
    assert b.severity == types.DiagnosticSeverity.Error
    assert b.source == "proclint"
    assert b.code_description.href.endswith("/rules/unchecked-breakpoint.md")

    # Hover on the finding: the rule's doc.
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(9, 20))
    )
    assert "## What it does" in hover.contents.value

    # Code actions on the parallel-thunk line: its safe fix and the two
    # disable comments.
    thunk = found["parallel-thunk"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            range=thunk.range,
            context=types.CodeActionContext(diagnostics=[thunk]),
        )
    )
    by_title = {a.title: a for a in actions}
    fix = [a for t, a in by_title.items() if t.startswith("Fix parallel-thunk")]
    assert len(fix) == 1 and fix[0].is_preferred, list(by_title)
    (edit,) = fix[0].edit.changes[URI]
    assert edit.new_text == "() => " and edit.range.start == types.Position(11, 4), edit
    line = by_title["Disable parallel-thunk for this line"].edit.changes[URI][0]
    assert line.new_text == "    // proclint-disable-next-line parallel-thunk -- reason\n"
    assert line.range.start == types.Position(11, 0)
    whole = by_title["Disable parallel-thunk for this file"].edit.changes[URI][0]
    assert whole.new_text == "// proclint-disable-file parallel-thunk -- reason\n"
    assert whole.range.start == types.Position(0, 0)

    # Fix all, as VS Code asks on save: the safe fix, as a line edit; the
    # breakpoint has no fix (a comment precedes it on its line).
    fix_all = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            range=types.Range(types.Position(0, 0), types.Position(15, 0)),
            context=types.CodeActionContext(
                diagnostics=[], only=["source.fixAll.proclint"], trigger_kind=types.CodeActionTriggerKind.Automatic
            ),
        )
    )
    assert [a.kind for a in fix_all] == ["source.fixAll.proclint"], fix_all
    (line_edit,) = fix_all[0].edit.changes[URI]
    assert line_edit.range == types.Range(types.Position(11, 0), types.Position(12, 0)), line_edit
    assert line_edit.new_text == "    () => ctx.task(checkTask, { command: 'npm test' }, { key: 'test' }),\n"

    # Branch on `approved` (two incremental edits, the first after the
    # emoji): the breakpoint finding clears.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(9, 11), types.Position(9, 11)),
                    text="const decision = ",
                ),
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(10, 0), types.Position(10, 0)),
                    text="  if (!decision.approved) return { aborted: true, feedback: decision.feedback };\n",
                ),
            ],
        )
    )
    found = await diagnostics(client)
    assert set(found) == {"parallel-thunk"}, found
    assert found["parallel-thunk"].range.start.line == 12
    assert found["parallel-thunk"].severity == types.DiagnosticSeverity.Warning

    # proclint.toml changes: severities follow, without a restart.
    (PROJECT / "proclint.toml").write_text('[rules]\nparallel-thunk = "error"\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(PROJECT / "proclint.toml").as_uri(), type=types.FileChangeType.Created)]
        )
    )
    found = await diagnostics(client)
    assert found["parallel-thunk"].severity == types.DiagnosticSeverity.Error
    (PROJECT / "proclint.toml").write_text('[rules]\nparallel-thunk = "warning"\n')


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[PROCLINT, "server"]))
async def pull_client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=caps(pull=True), root_uri=PROJECT.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="function")
async def test_pull_diagnostics_and_other_files(pull_client: LanguageClient):
    pull_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=URI, language_id="javascript", version=1, text=SOURCE)
        )
    )
    report = await pull_client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )
    assert {d.code for d in report.items} == {"unchecked-breakpoint", "parallel-thunk"}
    # A JavaScript file that is not a process module gets no findings.
    other = (PROJECT / "util.js").as_uri()
    pull_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=other, language_id="javascript", version=1, text="await x.breakpoint({});\n")
        )
    )
    report = await pull_client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=other))
    )
    assert list(report.items) == []


MULTI = pathlib.Path(__file__).parents[2] / "fixtures" / "unused-output-field" / "multi"


def multi_project(prefix, without=None):
    """A copy of the multi-module fixture (tasks.js declares `blockers`, which
    nothing reads) as an ES-module package, leaving out `without`."""
    project = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    (project / "package.json").write_text('{"name": "m", "type": "module"}\n')
    for f in MULTI.iterdir():
        if f.name != without:
            (project / f.name).write_text(f.read_text())
    return project


async def settled(client, uri, expected):
    """Waits until the rule ids on `uri` are `expected`: diagnostics arrive
    per document, and other documents' may come first."""
    for _ in range(20):
        if [d.code for d in client.diagnostics.get(uri, [])] == expected:
            return
        await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), 30)
    assert [d.code for d in client.diagnostics.get(uri, [])] == expected


@pytest.mark.asyncio(loop_scope="function")
async def test_cross_module_finding_follows_a_saved_module(client: LanguageClient):
    # tasks.js declares `blockers`, which nothing reads; helpers.js starts
    # reading it. Other modules are context read from disk, so the finding
    # clears when helpers.js is saved.
    project = multi_project("proclint-lsp-multi-")
    tasks = (project / "tasks.js").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=tasks, language_id="javascript", version=1, text=(project / "tasks.js").read_text()
            )
        )
    )
    await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), 30)
    assert [d.code for d in client.diagnostics[tasks]] == ["unused-output-field"]

    helpers = project / "helpers.js"
    text = helpers.read_text().replace("files)`", "files, ${result.blockers})`")
    helpers.write_text(text)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=helpers.as_uri()))
    )
    await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), 30)
    assert list(client.diagnostics[tasks]) == []


@pytest.mark.asyncio(loop_scope="function")
async def test_cross_module_finding_follows_another_open_buffer(client: LanguageClient):
    # As above, but helpers.js is open and edited, not saved: tasks.js's
    # finding clears as helpers.js starts reading `blockers`, and comes back
    # when the edit is undone, while the file on disk never changes.
    project = multi_project("proclint-lsp-open-")
    tasks = (project / "tasks.js").as_uri()
    helpers = project / "helpers.js"
    on_disk = helpers.read_text()
    for uri, path in ((tasks, project / "tasks.js"), (helpers.as_uri(), helpers)):
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="javascript", version=1, text=path.read_text())
            )
        )

    await settled(client, tasks, ["unused-output-field"])
    (line, column) = next(
        (i, l.index("files)`") + len("files"))
        for i, l in enumerate(on_disk.split("\n"))
        if "files)`" in l
    )
    at = types.Position(line, column)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=helpers.as_uri(), version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(range=types.Range(at, at), text=", ${result.blockers}")
            ],
        )
    )
    await settled(client, tasks, [])
    assert helpers.read_text() == on_disk
    end = types.Position(line, column + len(", ${result.blockers}"))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=helpers.as_uri(), version=3),
            content_changes=[types.TextDocumentContentChangePartial(range=types.Range(at, end), text="")],
        )
    )
    await settled(client, tasks, ["unused-output-field"])


@pytest.mark.asyncio(loop_scope="function")
async def test_a_new_unsaved_helper_counts_as_imported(client: LanguageClient):
    # helpers.js exists only as an open buffer (a file the user just
    # created and has not saved). phase.js imports it and hands it the
    # task result: with the helper unknown the result escapes and nothing is
    # reported; with the buffer resolved as the import, `blockers` is unread.
    project = multi_project("proclint-lsp-new-", without="helpers.js")
    tasks = (project / "tasks.js").as_uri()
    helpers = project / "helpers.js"
    for uri, text in ((tasks, (project / "tasks.js").read_text()), (helpers.as_uri(), (MULTI / "helpers.js").read_text())):
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="javascript", version=1, text=text)
            )
        )
    await settled(client, tasks, ["unused-output-field"])
    assert not helpers.exists()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[PROCLINT, "server"],
        server_env={"PROCLINT_INJECT_PANIC": "model:ship.js"},
    )
)
async def panicking_client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=caps(pull=False), root_uri=PROJECT.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="function")
async def test_a_panic_is_an_internal_error_diagnostic(panicking_client: LanguageClient):
    client = panicking_client
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=URI, language_id="javascript", version=1, text=SOURCE)
        )
    )
    found = await diagnostics(client)
    assert "internal-error" in found, found
    # The connection lives on: the next request is answered.
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(0, 0))
    )
    assert hover is None or hover.contents
