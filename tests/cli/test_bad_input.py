"""Bad input gets a clear error and loses nothing: a corpus of bad files, arguments, queries and
store folders, run in-process through the CLI against one store holding three graphs (PISTOL,
text, Wikidata). For every case: a non-zero exit, exactly one line of output, `Error: ...` of at
most 300 characters, naming the file (and the record or line where the case has one), no
traceback, and a checksum of every node and relationship of the store, with all properties,
unchanged. Each case's `needle` is a piece of text its error must contain."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from conftest import REPO, pistol_file, store_checksum

EXAMPLES = REPO / "examples" / "text"


@dataclass
class Case:
    id: str
    args: list[str]                                     # {f} = the case's file, {dir} = its folder
    content: bytes | None = None                        # the case's file, when it has one
    needle: str = ""                                    # text the error line must contain
    name_file: bool = True                              # the error names the case's file
    exit_codes: tuple = (1, 2)
    extra: dict = field(default_factory=dict)           # more files: name -> bytes


def j(value) -> bytes:
    return json.dumps(value).encode()


def pistol_records() -> list[dict]:
    records = json.loads(pistol_file("sample_data_1.json").read_text())
    return [r for r in records if r["edge"] in ("A_B", "A_C")]


def pistol_cases() -> list[Case]:
    good = pistol_records()

    def with_record(i: int, **change) -> bytes:
        records = [dict(r) for r in good]
        for k, v in change.items():
            if v is KeyError:
                records[i].pop(k)
            else:
                records[i][k] = v
        return j(records)

    build = ["build", "--pistol", "{f}", "--graph", "new"]
    text = json.dumps(good)
    cases = [
        Case("empty", build, b"", "empty"),
        Case("blank", build, b"  \n\t\n", "empty"),
        Case("not-utf8", build, b'[{"question": "\xff\xfe"}]', "not UTF-8"),
        Case("binary", build, bytes(range(256)) * 4, ""),
        Case("truncated", build, text[: len(text) // 2].encode(), "not JSON at line 1, column "),
        Case("truncated-in-a-string", build, b'[\n{"question": "What was the effective date', "not JSON at line 2, "
             "column 14: the file ends inside a string that starts here (truncated?)"),
        Case("truncated-between-values", build, b'[\n{"question": "q", \n', "not JSON at line 2, column 18: the "
             "file ends before the JSON does (truncated?)"),
        Case("missing-comma", build, b'[{"question": "q" "answer": "a"}]', "not JSON at line 1, column 19: a ',' or "
             "a closing ] or } was expected here (a missing comma?)"),
        Case("raw-line-break", build, b'[{"question": "q\nstill the question"}]', "not JSON at line 1, column 17: "
             "a raw control character (a line break or tab) inside a string; JSON writes it as \\n or \\t"),
        Case("object", build, j({"question": "q", "answer": "a", "edge": "A_B"}), "expected a JSON list"),
        Case("empty-list", build, b"[]", "no records"),
        Case("numbers", build, b"[1, 2, 3]", "record 0"),
        Case("null-record", build, j(good[:5] + [None] + good[5:]), "record 5"),
        Case("no-question", build, with_record(3, question=KeyError), "record 3"),
        Case("no-answer", build, with_record(4, answer=KeyError), "record 4"),
        Case("no-edge", build, with_record(6, edge=KeyError), "record 6"),
        Case("question-int", build, with_record(2, question=7), "record 2"),
        Case("answer-list", build, with_record(2, answer=["a"]), "record 2"),
        Case("edge-null", build, with_record(9, edge=None), "record 9"),
        Case("edge-no-underscore", build, with_record(0, edge="AB"), "record 0"),
        Case("edge-empty-end", build, with_record(0, edge="_B"), "record 0"),
        Case("question-no-template", build, with_record(5, question="How is the weather today?"), "record 5"),
        Case("question-empty", build, with_record(5, question=""), "record 5"),
        Case("answer-empty", build, with_record(5, answer=""), "record 5"),
        Case("answer-nan", build, text.replace('"answer": "06-02-1998."', '"answer": NaN', 1).encode(), "record 0"),
        Case("names-disagree", build, with_record(1, answer="Qqqqqq SA."), "Qqqqqq SA"),
        Case("duplicate-key", build, text.replace('"edge": "A_B"', '"edge": "A_B", "edge": "A_C"', 1).encode(),
             "appears twice"),
        Case("deep-nesting", build, b"[" * 10000 + b"]" * 10000, "nested too deeply"),
        Case("deep-in-record", build, with_record(0, answer=None).replace(b'"answer": null',
                                                                           b'"answer": ' + b"[" * 5000 + b"]" * 5000),
             "nested too deeply"),
        Case("huge-answer", build, with_record(1, answer="x" * 50_000_000), "record 1"),
        Case("trailing-comma", build, (text[:-1] + ",]").encode(), f"not JSON at line 1, column {len(text) + 1}: a "
             "comma right before this ] (JSON allows no trailing comma)"),
        Case("comments", build, ("// contracts\n" + text).encode(), "not JSON at line 1, column 1: a comment, which "
             "JSON does not allow"),
        Case("single-quotes", build, text.replace('"', "'").encode(), "not JSON at line 1, column 3: a string in "
             "single quotes; JSON needs double quotes"),
        Case("other-content-same-name", ["build", "--pistol", "{f}", "--graph", "sample_data_1"], j(good),
             "already holds other content"),
        Case("missing-file", ["build", "--pistol", "{dir}/nope.json"], None, "nope.json", name_file=False),
        Case("directory", ["build", "--pistol", "{dir}"], None, "", name_file=False),
        Case("graph-empty-name", ["build", "--pistol", "{f}", "--graph", ""], j(good), "--graph", name_file=False),
        Case("graph-bad-name", ["build", "--pistol", "{f}", "--graph", "a/b"], j(good), "a/b"),
        Case("graph-long-name", ["build", "--pistol", "{f}", "--graph", "g" * 1000], j(good), ""),
        Case("two-files-one-graph", ["build", "--pistol", "{f}", "--pistol", "{dir}/same/{name}"], j(good),
             "both become graph", name_file=False, extra={"same/{name}": j(good)}),
        Case("split-bad", ["build", "--pistol", "{f}", "--split", "both"], j(good), "--split", name_file=False),
        Case("keep-unknown-entity", build + ["--keep-entities", "A,Z9"], j(good), "no entity 'Z9'"),
        Case("keep-no-contract", build + ["--keep-entities", "B,C"], j(good), "no edge joins"),
        Case("rename-to-a-taken-name", build + ["--rename", "A=Wnzatj SAS"], j(good), "another entity has that name"),
        Case("rename-not-a-pair", build + ["--rename", "A"], j(good), "LABEL=VALUE", name_file=False),
        Case("address-without-name", build + ["--rename-address", "A=1 Main Street"], j(good), "no new name",
             name_file=False),
    ]
    return [Case(f"pistol-{c.id}", c.args, c.content, c.needle, c.name_file, c.exit_codes, c.extra) for c in cases]


def text_cases() -> list[Case]:
    forget = (EXAMPLES / "forget.txt").read_bytes()
    build = ["build", "--forget", "{f}", "--graph", "new-text"]
    cases = [
        Case("empty", build, b"", "empty"),
        Case("not-utf8", build, b"Ada Lovelace was born in London.\xff\xfe", "UTF-8"),
        Case("no-facts", build, b"Hello there. Nothing is stated here.", "no facts"),
        Case("missing", ["build", "--forget", "{dir}/nope.txt"], None, "nope.txt", name_file=False),
        Case("jsonl-bad-line", build[:2] + ["{f}"] + build[3:], b'{"text": "Ada was born in London."}\n{"text": \n',
             "line 2: not JSON at column 9: the line ends before the JSON does (truncated?)"),
        Case("jsonl-not-object", build, b'{"text": "Ada was born in London."}\n[1, 2]\n', "line 2"),
        Case("jsonl-lone-surrogate", build, b'{"text": "Ada was born in London. \\ud800"}\n', "half of a UTF-16 pair"),
        Case("jsonl-lone-surrogate-key", build, b'{"text": "Ada was born in London.", "\\udc00": 1}\n',
             "half of a UTF-16 pair"),
        Case("jsonl-no-field", build, b'{"body": "Ada was born in London."}\n', "line 1"),
        Case("pair-bad-line", ["generate", "text-pair", "--abstracts", "{f}", "-o", "{dir}/pair"],
             b'{"text": "Ada was born in London.", "triples": []}\n{"text": 3, "triples": [1]}\n', "line 2"),
        Case("pair-too-few", ["generate", "text-pair", "--abstracts", "{f}", "-o", "{dir}/pair"],
             b'{"text": "Ada was born in London.", "triples": []}\n', "with triples", name_file=False),
        Case("jsonl-field-not-text", build, b'{"text": 12}\n', "line 1"),
        Case("jsonl-deep", build, b'{"text": ' + b"[" * 5000 + b"]" * 5000 + b"}\n", "nested too deeply"),
        Case("jsonl-duplicate-key", build, b'{"text": "Ada was born in London.", "text": "x"}\n', "appears twice"),
        Case("json-not-list", build, j({"text": "Ada was born in London."}), "expected a JSON list"),
        Case("json-ints", build, j([1, 2]), "record 0"),
        Case("retain-only", ["build", "--retain", "{f}"], forget, "--forget", name_file=False),
        Case("passage-tokens-zero", build + ["--passage-tokens", "0"], forget, "passage", name_file=False),
        Case("format-bad", build + ["--format", "xml"], forget, "--format", name_file=False),
        Case("extractor-bad", build + ["--extractor", "magic"], forget, "--extractor", name_file=False),
        Case("spacy-model-missing", build + ["--spacy-model", "xx_nonexistent_sm"], forget, "xx_nonexistent_sm",
             name_file=False),
        Case("other-content-same-name", ["build", "--forget", "{f}", "--graph", "sample_data_1"], forget,
             "already holds other content"),
        Case("mixed-with-pistol", ["build", "--forget", "{f}", "--pistol", "{f}"], forget, "separate commands",
             name_file=False),
    ]
    out = []
    for c in cases:
        suffix = ".jsonl" if c.id.startswith("jsonl") else ".json" if c.id.startswith("json-") else ".txt"
        out.append(Case(f"text-{c.id}", c.args, c.content, c.needle, c.name_file, c.exit_codes,
                        {**c.extra, "suffix": suffix.encode()}))
    return out


def wikidata_cases() -> list[Case]:
    entity = {"type": "item", "id": "Q1", "labels": {"en": {"language": "en", "value": "Ada Test"}},
              "claims": {"P31": [{"mainsnak": {"snaktype": "value", "property": "P31", "datatype": "wikibase-item",
                                               "datavalue": {"type": "wikibase-entityid",
                                                             "value": {"entity-type": "item", "id": "Q5"}}},
                                  "rank": "normal"}],
                         "P1477": [{"mainsnak": {"snaktype": "value", "property": "P1477", "datatype": "nonsense-type",
                                                 "datavalue": {"type": "string", "value": "x"}}, "rank": "normal"}]}}
    line = json.dumps(entity)
    build = ["build", "--wikidata", "{f}", "--graph", "people"]
    cases = [
        Case("empty", build, b"", "empty"),
        # line[:40] is '{"type": "item", "id": "Q1", "labels": {', 40 characters
        Case("truncated-line", build, ("[\n" + line + ",\n" + line[:40] + "\n]\n").encode(),
             "line 3: not complete JSON at column 41: the line ends before the JSON does (truncated?)"),
        Case("no-closing", build, ("[\n" + line + ",\n" + line.replace('"Q1"', '"Q2"') + "\n").encode(), "truncated"),
        Case("text-after-close", build, ("[\n" + line + "\n]\nextra\n").encode(), "line 4"),
        Case("not-json", build, b"hello\nworld\n", "line 1"),
        Case("deep-line", build, b"[\n" + b"[" * 5000 + b"]" * 5000 + b"\n]\n", "nested too deeply"),
        Case("deep-jsonl", build, (line + "\n").encode() + b"{" + b'"a":[' * 5000 + b"]" * 5000 + b"}\n", "line 2"),
        Case("not-utf8", build, b"[\n\xff\xfe\n]\n", ""),
        Case("gzip-corrupt", ["build", "--wikidata", "{f}", "--graph", "people"], b"\x1f\x8b\x08" + b"\x00" * 50, ""),
        Case("bz2-corrupt", ["build", "--wikidata", "{f}", "--graph", "people"], b"BZh9" + b"\x00" * 50, ""),
        Case("unknown-datatype-only", build + ["--replace"], (line + "\n").encode(), "no facts"),
        Case("missing", ["build", "--wikidata", "{dir}/nope.json"], None, "nope.json", name_file=False),
        Case("instance-of-bad", build + ["--instance-of", "human"], (line + "\n").encode(), "human",
             name_file=False),
        Case("labels-bad", build + ["--labels", "{dir}/labels.tsv"], (line + "\n").encode(), "labels.tsv",
             name_file=False, extra={"labels.tsv": b"not a label line\n"}),
        # issue 29: a time past the calendar was a traceback (an IndexError on month 13)
        Case("time-out-of-range", build, (json.dumps({**entity, "claims": {"P31": entity["claims"]["P31"], "P569": [
            {"mainsnak": {"snaktype": "value", "property": "P569", "datatype": "time", "datavalue": {
                "type": "time", "value": {"time": "+99999999999-13-45T00:00:00Z", "precision": 11, "timezone": 0,
                                          "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}}},
             "rank": "normal"}]}}) + "\n").encode(), "Q1 P569: a time value without the shape Wikidata gives it"),
        Case("label-lone-surrogate", build, (line.replace("Ada Test", "Ada \\ud800 Test") + "\n").encode(),
             "half of a UTF-16 pair"),
        Case("labels-binary", build + ["--labels", "{dir}/labels.bin"], (line + "\n").encode(), "labels.bin",
             name_file=False, extra={"labels.bin": bytes(range(128, 256)) * 4}),
        Case("other-content-same-name", ["build", "--wikidata", "{f}", "--graph", "sample_data_1"],
             gzip.compress((json.dumps({**entity, "claims": {"P31": entity["claims"]["P31"]}}) + "\n").encode()),
             ""),
    ]
    return [Case(f"wikidata-{c.id}", c.args, c.content, c.needle, c.name_file, c.exit_codes, c.extra) for c in cases]


def cli_cases() -> list[Case]:
    plain = [
        ("unknown-command", ["fly"], "fly"),
        ("unknown-option", ["edges", "--colour", "red"], "--colour"),
        ("format-bad", ["edges", "--format", "xml"], "--format"),
        ("edges-unknown-graph", ["edges", "--graph", "nosuch"], "no graph named 'nosuch'"),
        ("edges-unknown-run", ["edges", "--run", "nosuch"], "no run 'nosuch'"),
        ("edges-export-xlsx", ["edges", "--output", "{dir}/x.xlsx"], ".csv or .parquet"),
        ("runs-unknown", ["runs", "nosuch"], "no run 'nosuch'"),
        ("runs-delete-no-id", ["runs", "--delete"], "--delete needs a RUN_ID"),
        ("runs-delete-unknown", ["runs", "nosuch", "--delete"], "no run 'nosuch'"),
        ("stats-unknown-graph", ["stats", "--graph", "nosuch"], "no graph named 'nosuch'"),
        ("stats-pistol-graph", ["stats", "--graph", "sample_data_1"], "not text corpora"),
        ("view-unknown-run", ["view", "--run", "nosuch"], "no run 'nosuch'"),
        ("report-unknown-run", ["report", "--run", "nosuch", "--output", "{dir}/r"], "no run 'nosuch'"),
        ("compare-unknown", ["compare", "nosuch", "other"], "no run 'nosuch'"),
        ("leakage-unknown", ["leakage", "--run", "nosuch"], "no run 'nosuch'"),
        ("run-no-graph", ["run", "--select", "top-degree:1"], "--graph"),
        ("run-unknown-graph", ["run", "--graph", "nosuch", "--select", "top-degree:1"], "no graph named 'nosuch'"),
        ("run-bad-selector", ["run", "--graph", "sample_data_1", "--select", "widest:3"], "unknown selector"),
        ("run-bad-method", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--method", "magic"], "--method"),
        ("run-epochs-zero", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--epochs", "0"], "epochs"),
        ("run-lr-negative", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--lr", "-1"], "--lr"),
        ("run-lr-text", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--lr", "fast"], "--lr"),
        ("run-method-option", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--method-option", "x"],
         "name=value"),
        ("run-no-selection", ["run", "--graph", "sample_data_1"], "--select"),
        # sample_data_1: 4 components, densities 0.133 (14 edges, 7 sales) and 0.667 (6 edges, 3 sales)
        ("run-density-tier-empty", ["run", "--graph", "sample_data_1", "--select", "density:dense:2"],
         "Error: --select 'density:dense:2': graph 'sample_data_1' has no edge in density tier 'dense'; its tiers "
         "(component density: sparse <= 1/3 < mid <= 2/3 < dense): sparse 14, mid 6, dense 0 edge(s); e.g. --select "
         "density:sparse:2"),
        ("run-domain-empty", ["run", "--graph", "sample_data_1", "--select", "domain:shipping"],
         "Error: --select 'domain:shipping': graph 'sample_data_1' has no edge of domain 'shipping'; its domains: "
         "employment 10, sales 10 edge(s)"),
        ("run-check-option-alone", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--check-option",
                                    "relearn_steps=3"], "--check-option without --check"),
        ("run-check-unknown", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--check", "quantise"],
         "--check"),
        ("run-check-option-unknown", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--check", "relearn",
                                      "--check-option", "relearn_stepz=3"], "no option 'relearn_stepz'"),
        ("run-check-option-type", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--check", "relearn",
                                   "--check-option", "relearn_steps=many"], "relearn_steps='many': expected an int"),
        ("run-check-option-scheme", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--check", "quantize",
                                     "--check-option", "quantize=int2"], "quantize='int2'"),
        ("run-model-missing", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--model", "./no/model"],
         "does not exist"),
        ("run-no-inject-scratch", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--no-inject"],
         "scratch"),
        ("run-retain-bad", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--retain", "some"],
         "--retain 'some'"),
        ("run-batch-size-zero", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--batch-size", "0"],
         "batch"),
        ("run-device-bad", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--device", "tpu"], "tpu"),
        ("run-utility-missing", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--utility",
                                 "{dir}/nope.json"], "nope.json"),
        ("run-cypher-no-key", ["run", "--graph", "sample_data_1", "--cypher", "MATCH (n:Entity) RETURN n.key AS k"],
         "column named key"),
        ("run-cypher-and-select", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--cypher",
                                   "MATCH (n) RETURN n.key AS key"], "exactly one"),
        ("run-inject-target-bad", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--inject-target", "2"],
         "--inject-target"),
        # issue 29: ids that would name a folder outside the cache, numbers that are not numbers
        ("run-id-absolute", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--run-id", "/tmp/escape"], "--run-id '/tmp/escape': use letters"),
        ("run-id-parents", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--run-id", "../../.."], "--run-id '../../..': use letters"),
        ("run-id-dotdot", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--run-id", ".."], "--run-id '..': use letters"),
        ("run-id-long", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--run-id", "a" * 500], "(up to 128)"),
        ("run-lr-inf", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--lr", "inf"], "--lr inf: must be a finite number"),
        ("run-model-gguf-missing", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--model", "no-such.gguf"],
         "--model no-such.gguf: no such GGUF file"),
        ("run-lr-overflow", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--lr", "1e309"], "--lr inf: must be a finite number"),
        ("run-lr-nan", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--lr", "nan"], "--lr nan: must be a finite number"),
        ("run-inject-lr-nan", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--inject-lr", "nan"], "--inject-lr nan: must be a finite number"),
        ("run-method-option-nan", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--method", "npo", "--method-option", "beta=nan"],
         "method npo option beta='nan': must be a finite number"),
        ("run-check-option-inf", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--check", "relearn", "--check-option", "relearn_lr=inf"],
         "relearn_lr='inf': must be a finite number"),
        ("run-eval-batch-negative", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--eval-batch-size", "-1"], "--eval-batch-size -1: must be a positive"),
        ("run-select-past-64-bits", ["run", "--graph", "sample_data_1", "--select", f"top-degree:{2**64}"],
         "is not a positive whole number of at most 64 bits"),
        ("run-seed-past-64-bits", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--seed", str(2**64)], "--seed 18446744073709551616: must fit in 64 bits"),
        ("generate-fraction-bad", ["generate", "pistol", "--topology", "chain", "--nodes", "4",
                                   "--employment-fraction", "2", "-o", "{dir}/g.json"], "fraction"),
        ("generate-edges-missing", ["generate", "pistol", "--edges", "{dir}/nope.txt", "-o", "{dir}/g.json"],
         "nope.txt"),
        ("memorization-not-wikidata", ["memorization", "--graph", "sample_data_1", "--model", "./m"], ""),
        ("memorization-scratch", ["memorization", "--graph", "people", "--model", "scratch"], "scratch"),
        ("generate-nodes-zero", ["generate", "pistol", "--topology", "chain", "--nodes", "0", "-o", "{dir}/g.json"],
         "nodes"),
        ("generate-topology-bad", ["generate", "pistol", "--topology", "torus", "--nodes", "4", "-o", "{dir}/g.json"],
         "--topology"),
        ("generate-people-zero", ["generate", "wikidata", "--people", "0", "-o", "{dir}/p.json"], "--people"),
        ("run-passages-on-pistol", ["run", "--graph", "sample_data_1", "--select", "edges:A_B", "--train-on", "passages"],
         "needs a graph built from text"),
        ("run-passages-dpo", ["run", "--graph", "demo-text", "--select", "split:forget", "--train-on", "passages",
                              "--method", "dpo"], "dpo and idk pair a refusal"),
        ("run-canaries-on-text", ["run", "--graph", "demo-text", "--select", "split:forget", "--train-on", "canaries"],
         "needs a graph built from wikidata"),
        ("run-chunk-tokens-small", ["run", "--graph", "demo-text", "--select", "split:forget", "--train-on", "passages",
                                    "--chunk-tokens", "3"], "--chunk-tokens 3"),
        ("query-no-cypher", ["query"], "CYPHER"),
        ("query-param-no-equals", ["query", "RETURN 1", "--param", "k"], "name=value"),
        ("query-param-bad-name", ["query", "RETURN 1", "--param", "1k=2"], "name=value"),
        ("query-param-deep", ["query", "RETURN $x AS x", "--param", "x=" + "[" * 10000 + "]" * 10000],
         "nested too deeply"),
        ("query-param-duplicate", ["query", "RETURN $x AS x", "--param", 'x={"a": 1, "a": 2}'], "appears twice"),
        ("query-param-missing", ["query", "MATCH (e:Entity) WHERE e.name = $name RETURN e.key"],
         "Error: the query uses $name but no value was given for it; nothing was run. Add --param name=VALUE (VALUE "
         "is JSON when it parses, else text: --param k=5, --param name='Jzrcws SA')"),
        ("query-params-missing", ["query", "RETURN $k + $j AS x, $n AS n", "--param", "j=1"],
         "Error: the query uses $k and $n but no value was given for them; nothing was run. Add --param k=VALUE "
         "--param n=VALUE"),
        ("query-syntax", ["query", "MATCH (n RETURN n"], "refused the query"),
        ("query-two-statements", ["query", "RETURN 1; CREATE (:Z)"], "refused the query"),
        ("query-empty", ["query", ""], ""),
        ("query-unknown-function", ["query", "RETURN nosuchfunction(1)"], ""),
        ("query-write-read-only", ["query", "MATCH (n:Entity) CALL { WITH n SET n.x = 1 } IN TRANSACTIONS RETURN 1"],
         "runs read-only"),
        ("query-load-csv", ["query", "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row LIMIT 2"], "LOAD CSV"),
        # issue 29: bytes that are not UTF-8 (as argv gives them: lone surrogates), integers past 64 bits
        ("query-not-utf8", ["query", "RETURN '\udcff' AS x"], "the query is not valid UTF-8 text"),
        ("query-param-not-utf8", ["query", "RETURN $x AS x", "--param", "x=\udcff"], "--param is not valid UTF-8"),
        ("query-param-past-64-bits", ["query", "RETURN $x AS x", "--param", f"x={2**64}"], "past 64 bits"),
        ("query-param-list-past-64-bits", ["query", "RETURN $x AS x", "--param", f"x=[1, {-2**63 - 1}]"],
         "past 64 bits"),
        # issue 29: inputs that are no regular file are refused before a byte is read (memory)
        ("build-pistol-dev-zero", ["build", "--pistol", "/dev/zero", "--graph", "new"], "not a regular file"),
        ("build-text-dev-zero", ["build", "--forget", "/dev/zero", "--graph", "new-text"], "not a regular file"),
        ("generate-nodes-huge", ["generate", "pistol", "--topology", "chain", "--nodes", "99999999999999999999",
                                 "-o", "{dir}/g.json"], "must be at most 5,000,000"),
        ("generate-complete-too-many-edges", ["generate", "pistol", "--topology", "complete", "--nodes", "100000",
                                              "-o", "{dir}/g.json"], "at most 10,000,000 are generated"),
        # issue 29: output paths the file system refuses (a path under a file)
        ("edges-output-under-a-file", ["edges", "--output", "/proc/version/edges.csv"], "/proc/version"),
        ("generate-output-under-a-file", ["generate", "pistol", "--topology", "chain", "--nodes", "4", "-o",
                                          "/proc/version/g.json"], "/proc/version"),
        ("coverage-missing-file", ["coverage", "{dir}/nope.json", "--graph", "demo-text"], "nope.json"),
        ("server-bad", ["server", "restart"], "restart"),
    ]
    return [Case(f"cli-{i}", args, None, needle, name_file=False) for i, args, needle in plain]


def experiment_cases() -> list[Case]:
    head = b'name = "bad"\n[[graphs]]\nname = "sample_data_1"\n'
    grid = b'[grid]\nselectors = ["edges:A_B"]\nmethods = ["ga"]\nseeds = [0]\n'
    toml = {"suffix": b".toml"}
    run = ["experiment", "{f}"]
    cases = [
        Case("unknown-key", run, head + grid + b"[rnu]\nepochs = 1\n", "rnu: unknown key", extra=toml),
        Case("unknown-method", run, head + grid.replace(b'"ga"', b'"ga", "gx"'), "grid.methods[1]", extra=toml),
        Case("seed-text", run, head + grid.replace(b"[0]", b'["zero"]'), "grid.seeds[0]", extra=toml),
        Case("not-toml", run, head + b"[grid\n", "not TOML", extra=toml),
        Case("not-yaml", run, b"name: [unclosed\n", "not YAML", extra={"suffix": b".yaml"}),
        Case("json-file", run, b"{}", "TOML or YAML"),
        Case("missing-graph", run, head.replace(b"sample_data_1", b"nosuch") + grid, "no graph 'nosuch'", extra=toml),
        Case("missing-pistol-file", run, head + b'pistol = "nofile.json"\n' + grid, "graphs[0].pistol", extra=toml),
        Case("bad-selector", run, head + grid.replace(b"edges:A_B", b"widest:3"), "unknown selector", extra=toml),
        Case("absent-edge", run, head + grid.replace(b"edges:A_B", b"edges:Z_Y"), "Z_Y", extra=toml),
        Case("table-never-run", run + ["--table-only"], head + grid, "no experiment 'bad'", extra=toml),
        Case("train-on-unknown", run, head + grid + b'[run]\ntrain_on = "books"\n', "run.train_on", extra=toml),
        Case("checks-unknown", run, head + grid + b'[run]\nchecks = ["quantise"]\n', "run.checks", extra=toml),
        Case("check-options-bad", run, head + grid + b'[run]\nchecks = ["all"]\ncheck_options = {mia_k = 2.0}\n',
             "run.check_options", extra=toml),
        # issue 29: numbers in range, refused before anything runs (--dry-run included)
        Case("yaml-alias-bomb", run, b"name: bad\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n", "aliases (*name) are not read", extra={"suffix": b".yaml"}),
        Case("toml-nested-tables", run, b"name = " + b"{a = " * 500 + b"1" + b"}" * 500 + b"\n",
             "nested too deeply", extra=toml),
        Case("grid-too-many-cells", run + ["--dry-run"], head + b'[grid]\nselectors = ["edges:A_B"]\nmethods = ["ga"]\n'
             b"seeds = [" + b", ".join(str(i).encode() for i in range(1000)) + b"]\nlrs = ["
             + b", ".join(f"{i + 1}e-5".encode() for i in range(200)) + b"]\n", "200,000 cells", extra=toml),
        Case("yaml-duplicate-key", run, b"name: bad\nname: other\ngraphs: []\n", "the key 'name' is given twice",
             extra={"suffix": b".yaml"}),
        Case("epochs-negative", run + ["--dry-run"], head + grid + b"[run]\nepochs = -1\n", "run.epochs", extra=toml),
        Case("epochs-zero", run, head + grid + b"[run]\nepochs = 0\n", "run.epochs", extra=toml),
        Case("batch-size-negative", run, head + grid + b"[run]\nbatch_size = -4\n", "run.batch_size", extra=toml),
        Case("inject-target-nan", run + ["--dry-run"], head + grid + b"[run]\ninject_target = nan\n",
             "run.inject_target", extra=toml),
        Case("inject-lr-inf", run, head + grid + b"[run]\ninject_lr = inf\n", "run.inject_lr", extra=toml),
        Case("eval-batch-negative", run, head + grid + b"[run]\neval_batch_size = -1\n", "run.eval_batch_size",
             extra=toml),
        Case("lrs-inf", run + ["--dry-run"], head + grid + b"lrs = [inf]\n", "positive finite", extra=toml),
        Case("lrs-nan", run, head + grid + b"lrs = [nan]\n", "positive finite", extra=toml),
        Case("method-option-nan", run, head + grid.replace(b'"ga"', b'"npo"') + b"[method_options]\nnpo = [{beta = nan}]\n",
             "must be a finite number", extra=toml),
        Case("pair-not-in-grid", run + ["--pair", "edges:A_B,edges:A_C"], head + grid,
             "two of the grid's selectors", extra=toml),
        Case("retain-without-forget", run, head + b'retain = ["r.txt"]\n' + grid, "graphs[0].retain",
             extra={**toml, "r.txt": b"Ada was born in London.\n"}),
    ]
    return [Case(f"experiment-{c.id}", c.args, c.content, c.needle, c.name_file and c.id not in
                 ("missing-graph", "bad-selector", "absent-edge", "table-never-run", "pair-not-in-grid"), c.exit_codes, c.extra)
            for c in cases]


CASES = pistol_cases() + text_cases() + wikidata_cases() + cli_cases() + experiment_cases()


@pytest.fixture(scope="module")
def baseline(settings, store_args, tmp_path_factory):
    """The store every case runs against: a PISTOL, a text and a Wikidata graph."""
    from graphstore import GraphStore

    folder = tmp_path_factory.mktemp("baseline")
    with GraphStore.open(settings) as store:
        store.write("MATCH (n) DETACH DELETE n")
    people = folder / "people.json"
    runner = CliRunner()
    for args in (["build", "--pistol", str(pistol_file("sample_data_1.json"))],
                 ["build", "--forget", str(EXAMPLES / "forget.txt"), "--retain", str(EXAMPLES / "retain.jsonl"),
                  "--graph", "demo-text"],
                 ["generate", "wikidata", "--people", "3", "--seed", "2", "-o", str(people)],
                 ["build", "--wikidata", str(people), "--graph", "people"]):
        result = runner.invoke(cli, args + (list(store_args) if args[0] == "build" else []),
                               catch_exceptions=False)
        assert result.exit_code == 0, result.output
    with GraphStore.open(settings) as store:
        yield store


def test_the_corpus_is_large_and_every_case_is_named_once():
    assert len(CASES) >= 120
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input_is_one_clear_line_and_changes_nothing(baseline, store_args, tmp_path, case):
    suffix = case.extra.get("suffix", b".json").decode()
    path = tmp_path / f"input{suffix}"
    if case.content is not None:
        path.write_bytes(case.content)
    for name, content in case.extra.items():
        if name != "suffix":
            target = tmp_path / name.replace("{name}", path.name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
    args = [a.replace("{f}", str(path)).replace("{dir}", str(tmp_path)).replace("{name}", path.name)
            for a in case.args]
    if args and args[0] not in ("generate",) and "--store" not in args and args != ["fly"]:
        args += list(store_args)
    before = store_checksum(baseline)
    result = CliRunner().invoke(cli, args)
    output = result.output
    assert "Traceback" not in output and not isinstance(result.exception, (AssertionError, RecursionError)), output
    assert result.exit_code in case.exit_codes, f"exit {result.exit_code}: {output[:500]}"
    lines = output.strip().splitlines()
    assert len(lines) == 1, f"{len(lines)} lines: {output[:1000]}"
    assert lines[0].startswith("Error: ") and len(lines[0]) <= 300, lines[0]
    assert case.needle in lines[0], lines[0]
    if case.name_file:
        assert path.name in lines[0], lines[0]
    assert store_checksum(baseline) == before


def test_a_store_folder_that_is_a_file_or_leaks_its_password(tmp_path, baseline):
    before = store_checksum(baseline)
    a_file = tmp_path / "store-file"
    a_file.write_text("not a folder")
    result = CliRunner().invoke(cli, ["status", "--store", str(a_file)])
    assert result.exit_code == 1 and result.output.startswith("Error: ") and len(result.output.splitlines()) == 1
    leaky = tmp_path / "leaky"
    leaky.mkdir()
    (leaky / "credentials").write_text("secret\n")
    os.chmod(leaky / "credentials", 0o644)
    result = CliRunner().invoke(cli, ["status", "--store", str(leaky)])
    assert result.exit_code == 1 and "readable by others" in result.output
    assert store_checksum(baseline) == before


def test_two_builds_of_the_same_content_at_once_both_succeed(baseline, store_args, tmp_path):
    data = tmp_path / "same.json"
    data.write_bytes(j(pistol_records()))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "cli.main", "build", "--pistol", str(data), "--graph", "same",
               *store_args]
    processes = [subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(3)]
    outputs = [p.communicate(timeout=300) for p in processes]
    assert all(p.returncode == 0 for p in processes), outputs
    statuses = sorted(out.split(" - ")[0].split(": ")[1] for out, _ in outputs)
    assert statuses.count("loaded") == 1 and statuses.count("unchanged") == 2, statuses
    assert baseline.read("MATCH (g:Graph {key: 'same'}) RETURN count(g) AS n")[0]["n"] == 1
    baseline.write("MATCH (n {graph: 'same'}) DETACH DELETE n")
    baseline.write("MATCH (g:Graph {key: 'same'}) DELETE g")


def test_a_wikidata_file_with_no_facts_never_replaces_a_graph(baseline, store_args, tmp_path):
    """The finding of the issue: --replace with a file whose only statement has an unknown
    datatype replaced a 5-subject graph by 1 subject and 0 facts."""
    case = next(c for c in CASES if c.id == "wikidata-unknown-datatype-only")
    path = tmp_path / "input.json"
    path.write_bytes(case.content)
    facts = baseline.read("MATCH (:Entity {graph: 'people'})-[f:FACT]->() RETURN count(f) AS n")[0]["n"]
    result = CliRunner().invoke(cli, ["build", "--wikidata", str(path), "--graph", "people", "--replace",
                                      *store_args])
    assert result.exit_code == 1 and "no facts were found" in result.output and "left as it was" in result.output
    assert baseline.read("MATCH (:Entity {graph: 'people'})-[f:FACT]->() RETURN count(f) AS n")[0]["n"] == facts > 0


# -- a Neo4j server that cannot be used: one line, nothing written ------------------------------------
@pytest.mark.parametrize("case, message", [
    ("unreachable", "Error: cannot reach bolt://127.0.0.1:1: "),
    ("wrong-password", "refused the credentials of user 'neo4j'"),
    ("no-database", "Error: database 'nosuch' does not exist on bolt://127.0.0.1:"),
])
@pytest.mark.parametrize("command", ["status", "build", "query"])
def test_a_neo4j_that_cannot_be_used_is_one_line_and_nothing_is_written(neo4j_server, case, message, command):
    from graphstore import ConnectionSettings, GraphStore

    uri, password, extra = neo4j_server.uri, neo4j_server.password, []
    if case == "unreachable":
        uri = "bolt://127.0.0.1:1"
    elif case == "wrong-password":
        password += "-wrong"
    else:
        extra = ["--database", "nosuch"]
    args = {"status": ["status"], "build": ["build", "--pistol", str(pistol_file("sample_data_1.json"))],
            "query": ["query", "CREATE (:Scratch) RETURN 1", "--write"]}[command]
    settings = ConnectionSettings.resolve(uri=neo4j_server.uri, password=neo4j_server.password, environ={})
    with GraphStore.open(settings) as store:
        before = store_checksum(store)
        result = CliRunner().invoke(cli, [*args, "--uri", uri, "--password", password, *extra])
        assert result.exit_code == 1, result.output
        assert result.output.count("\n") == 1 and result.output.startswith("Error: ") and message in result.output
        assert "Traceback" not in result.output
        assert store_checksum(store) == before


def test_a_neo4j_without_gds_computes_components_in_cypher(neo4j_server):
    """The test server has APOC and no Graph Data Science: nothing of ours needs either; components
    come from union-find over the edge list read by Cypher (graphstore/structure.py)."""
    from extract.pistol.load import load_pistol
    from graphstore import ConnectionSettings, GraphStore
    from graphstore.ingest import write_graph

    settings = ConnectionSettings.resolve(uri=neo4j_server.uri, password=neo4j_server.password, environ={})
    with GraphStore.open(settings) as store:
        assert store.engine == "neo4j" and not store.has_gds
        summary = write_graph(store, load_pistol(pistol_file("sample_data_1.json"), graph="no-gds"))
        assert summary.components == 4   # networkx: 4 (test_build_structure.py)
        store.write("MATCH (n {graph: 'no-gds'}) DETACH DELETE n")
        store.write("MATCH (g:Graph {key: 'no-gds'}) DELETE g")


def test_edges_of_a_run_with_another_graph_is_refused(store, store_args, run_cache, tmp_path):
    """Issue 29: `edges --run X --graph Y` ignored --graph."""
    from conftest import small_pistol_run

    small_pistol_run(store, tmp_path, run_cache, "edges-g", "edges-g-ga", [("a", "b"), ("b", "c"), ("c", "d")], seed=2)
    result = CliRunner().invoke(cli, ["edges", "--run", "edges-g-ga", "--graph", "other", *store_args])
    assert result.exit_code == 1
    assert result.output == ("Error: run 'edges-g-ga' audited graph 'edges-g', not 'other': give --run alone, "
                             "or --graph alone\n")
    same = CliRunner().invoke(cli, ["edges", "--run", "edges-g-ga", "--graph", "edges-g", *store_args])
    assert same.exit_code == 0 and "edges-g/a_b" in same.output


def test_two_builds_of_large_different_files_at_once_both_land(store, store_args, tmp_path):
    """Issue 29: one of two concurrent builds failed with the embedded engine's "Concurrent
    modification on page ... Please retry"; a build now retries the whole transaction. (Not
    reproduced here: two 16,000-edge builds at once landed even without retries, so this checks
    that concurrent builds land, not the retry itself.)"""
    from extract.pistol.generate import generate_pistol, write_dataset
    from extract.pistol.topology import build_topology

    files = []
    for seed in (1, 2):
        path = tmp_path / f"big{seed}.json"
        write_dataset(generate_pistol(build_topology("barabasi_albert", 2000, seed=seed, m=2), seed=seed), path)
        files.append(path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    processes = [subprocess.Popen([sys.executable, "-m", "cli.main", "build", "--pistol", str(path),
                                   "--graph", path.stem, *store_args], cwd=REPO, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for path in files]
    outputs = [p.communicate(timeout=600) for p in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    for path in files:
        assert store.read("MATCH (g:Graph {key: $g}) RETURN g.facts AS n", g=path.stem) == [{"n": 3997}]
