"""The compose file: valid against the Compose Specification, and shaped as the audit needs.

The schema check runs without Docker, against the compose-spec JSON Schema kept beside the
project (../shared/data/compose-spec/). `docker compose config` runs too where a compose
plugin is installed, and is skipped otherwise.

The file is checked as written, before compose interpolation: `${NEO4J_PASSWORD}` stays a
string, which is what the schema expects in those places anyway.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from jsonschema.validators import validator_for

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCKER_DIR = REPO_ROOT / "docker"
COMPOSE_FILE = DOCKER_DIR / "compose.yaml"
COMPOSE_SCHEMA = REPO_ROOT.parent / "shared/data/compose-spec/compose-spec.json"


@pytest.fixture(scope="module")
def compose() -> dict:
    with COMPOSE_FILE.open(encoding="utf-8") as f:
        return yaml.safe_load(f)


@pytest.fixture(scope="module")
def compose_validator():
    if not COMPOSE_SCHEMA.is_file():
        pytest.skip(f"compose-spec JSON Schema not found at {COMPOSE_SCHEMA}")
    schema = yaml.safe_load(COMPOSE_SCHEMA.read_text(encoding="utf-8"))  # JSON is YAML
    validator_class = _validator_class(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def _validator_class(schema: dict):
    """The jsonschema validator class for the draft the schema declares in `$schema`.

    compose-spec declares "https://json-schema.org/draft-07/schema", while jsonschema knows
    draft 7 by "http://json-schema.org/draft-07/schema#" and, on no match, quietly falls back
    to the newest draft (whose `$ref` rules differ). So the URI is put in canonical form
    and a miss is a failure, not a fallback.
    """
    declared = schema.get("$schema", "")
    canonical = re.sub(r"^https://", "http://", declared).rstrip("#") + "#"
    validator_class = validator_for({"$schema": canonical}, default=None)
    if validator_class is None:
        pytest.fail(f"{COMPOSE_SCHEMA}: jsonschema has no validator for $schema {declared!r}")
    return validator_class


def _schema_errors(validator, document: dict) -> list[str]:
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '<root>'}: {error.message}"
        for error in validator.iter_errors(document)
    ]


def _environment(service: dict) -> dict[str, str]:
    """A service's `environment`, in either of compose's two forms, as a dict."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {key: "" if value is None else str(value) for key, value in env.items()}


def _volume_mounts(service: dict) -> dict[str, str]:
    """Container path -> source, for short ("src:dst[:mode]") and long volume syntax."""
    mounts = {}
    for volume in service.get("volumes", []):
        if isinstance(volume, dict):
            mounts[volume["target"]] = volume.get("source", "")
        else:   # colons inside ${VAR:-default} are not separators
            source, target = re.findall(r"(?:\$\{[^}]*\}|[^:])+", volume)[:2]
            mounts[target] = source
    return mounts


def _published_ports(service: dict) -> dict[int, str]:
    """Container port -> host address it is published on ("" where none is given)."""
    published = {}
    for port in service.get("ports", []):
        if isinstance(port, dict):
            published[int(port["target"])] = port.get("host_ip", "")
            continue
        parts = str(port).split("/")[0].split(":")
        host_ip = parts[0] if len(parts) == 3 else ""
        published[int(parts[-1])] = host_ip
    return published


# --- the Compose Specification -------------------------------------------------------------


def test_compose_file_matches_compose_spec(compose, compose_validator):
    assert _schema_errors(compose_validator, compose) == []


@pytest.mark.parametrize(
    ("where", "break_it"),
    [
        ("services/neo4j/ports", lambda doc: doc["services"]["neo4j"].__setitem__("ports", 7687)),
        ("<root>", lambda doc: doc.__setitem__("servics", {})),
        (
            "services/neo4j/healthcheck",
            lambda doc: doc["services"]["neo4j"]["healthcheck"].__setitem__("every", "10s"),
        ),
    ],
    ids=["ports-not-a-list", "unknown-top-level-key", "unknown-healthcheck-key"],
)
def test_compose_spec_rejects_a_broken_file(compose, compose_validator, where, break_it):
    # Proves the validation above can fail: one deliberate mistake, reported where it is.
    broken = copy.deepcopy(compose)
    break_it(broken)
    errors = _schema_errors(compose_validator, broken)
    assert errors, "the schema accepted a file with a deliberate mistake"
    assert any(error.startswith(f"{where}:") for error in errors), errors


# --- neo4j ---------------------------------------------------------------------------------


def test_neo4j_is_5_26_community_with_apoc(compose):
    neo4j = compose["services"]["neo4j"]
    assert neo4j["image"] == "neo4j:5.26-community"
    assert "apoc" in yaml.safe_load(_environment(neo4j)["NEO4J_PLUGINS"])  # a JSON list


def test_neo4j_password_comes_from_the_environment(compose):
    auth = _environment(compose["services"]["neo4j"])["NEO4J_AUTH"]
    assert auth.startswith("neo4j/${NEO4J_PASSWORD")
    # `:?` makes compose refuse to start without a password instead of using an empty one.
    assert re.fullmatch(r"neo4j/\$\{NEO4J_PASSWORD:\?[^}]+\}", auth), auth


def test_neo4j_data_and_logs_live_in_named_volumes(compose):
    mounts = _volume_mounts(compose["services"]["neo4j"])
    for target in ("/data", "/logs"):
        assert target in mounts, f"neo4j has no volume at {target}"
        assert mounts[target] in compose.get("volumes", {}), (
            f"{target} is mounted from {mounts[target]!r}, not a named volume"
        )


def test_neo4j_ports_are_bound_to_loopback_only(compose):
    published = _published_ports(compose["services"]["neo4j"])
    assert published == {7474: "127.0.0.1", 7687: "127.0.0.1"}


def test_neo4j_healthcheck_runs_a_bolt_query(compose):
    healthcheck = compose["services"]["neo4j"]["healthcheck"]
    test = healthcheck["test"]
    command = test if isinstance(test, str) else " ".join(test)
    assert "cypher-shell" in command
    assert "bolt://localhost:7687" in command
    assert "RETURN 1" in command
    assert {"interval", "timeout", "retries", "start_period"} <= healthcheck.keys()


def test_neo4j_memory_is_set(compose):
    env = _environment(compose["services"]["neo4j"])
    for setting in (
        "NEO4J_server_memory_heap_initial__size",
        "NEO4J_server_memory_heap_max__size",
        "NEO4J_server_memory_pagecache_size",
    ):
        assert env.get(setting), f"{setting} is not set"


# --- audit ---------------------------------------------------------------------------------


def test_audit_reaches_neo4j_by_service_name(compose):
    env = _environment(compose["services"]["audit"])
    uri = urlsplit(env["AUDIT_NEO4J_URI"])
    assert uri.scheme in {"bolt", "neo4j"}
    assert uri.hostname in compose["services"]
    assert uri.hostname == "neo4j" and uri.port == 7687
    assert env["AUDIT_NEO4J_USER"] == "neo4j"
    assert env["AUDIT_NEO4J_PASSWORD"] == "${NEO4J_PASSWORD}"
    assert env["AUDIT_NEO4J_DATABASE"] == "neo4j"


def test_audit_waits_for_a_healthy_neo4j(compose):
    depends_on = compose["services"]["audit"]["depends_on"]
    assert depends_on["neo4j"]["condition"] == "service_healthy"


def test_audit_runs_on_any_host_and_audit_gpu_reserves_the_gpus(compose):
    services = compose["services"]
    # `audit` reserves no device (a host without the NVIDIA toolkit runs it) and is in no profile
    assert "deploy" not in services["audit"] and "profiles" not in services["audit"]
    gpu = services["audit-gpu"]
    devices = gpu["deploy"]["resources"]["reservations"]["devices"]
    gpus = [d for d in devices if d.get("driver") == "nvidia" and "gpu" in d["capabilities"]]
    assert gpus, devices
    assert gpus[0]["count"] == "all" or int(gpus[0]["count"]) >= 1
    # only in the profile "gpu": a plain `up` leaves it out, `run audit-gpu` enables it
    assert gpu["profiles"] == ["gpu"]
    # otherwise the same service: image, command, connection and mounts
    assert {k: v for k, v in gpu.items() if k not in ("deploy", "profiles")} == services["audit"]


def test_the_default_data_folder_exists_and_holds_the_readmes_examples(compose):
    mounts = _volume_mounts(compose["services"]["audit"])
    default = re.fullmatch(r"\$\{AUDIT_DATA_DIR:-([^}]+)\}", mounts["/data"])
    assert default, mounts["/data"]
    folder = (DOCKER_DIR / default.group(1)).resolve()
    assert folder.is_dir() and folder.is_relative_to(REPO_ROOT)
    # every /data/... file docker/README.md runs without setting AUDIT_DATA_DIR is in that folder
    readme = (DOCKER_DIR / "README.md").read_text(encoding="utf-8")
    default_section = readme.split("## Run `audit` in a container", 1)[1].split("AUDIT_DATA_DIR=", 1)[0]
    paths = re.findall(r"/data/(\S+)", default_section)
    assert paths, "docker/README.md runs no example on /data"
    for path in paths:
        assert (folder / path).is_file(), f"docker/README.md uses /data/{path}: not in {folder}"


def test_audit_runs_the_audit_command(compose):
    audit = compose["services"]["audit"]
    assert audit["entrypoint"] in (["audit"], "audit")
    assert audit["command"] in (["status"], "status")
    assert any(target == "/cache" for target in _volume_mounts(audit)), "no model cache volume"


def test_audit_image_builds_from_the_repository_root(compose):
    build = compose["services"]["audit"]["build"]
    context = (DOCKER_DIR / build["context"]).resolve()
    assert context == REPO_ROOT
    dockerfile = context / build["dockerfile"]
    assert dockerfile.is_file()
    # BuildKit filters the context with <Dockerfile>.dockerignore when it exists.
    assert dockerfile.with_name(dockerfile.name + ".dockerignore").is_file()


def test_dockerfile_copies_every_package(compose):
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    # setuptools finds the sub-packages (audit.run.methods, ...) under these top-level folders
    include = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = sorted({p.rstrip("*").rstrip(".") for p in include})
    build = compose["services"]["audit"]["build"]
    dockerfile = (DOCKER_DIR / build["context"] / build["dockerfile"]).resolve()
    copied = {
        source.rstrip("/")
        for line in dockerfile.read_text(encoding="utf-8").splitlines()
        if line.startswith("COPY ")
        for source in line.split()[1:-1]
    }
    dockerignore = dockerfile.with_name(dockerfile.name + ".dockerignore")
    allowed = {
        line[1:].rstrip("/")
        for line in dockerignore.read_text(encoding="utf-8").splitlines()
        if line.startswith("!")
    }
    for package in packages:
        assert package in copied, f"{dockerfile.name} does not COPY the package {package!r}"
        assert package in allowed, f"{dockerignore.name} keeps {package!r} out of the build context"


# --- docker compose itself, where installed ------------------------------------------------


def test_docker_compose_accepts_the_file():
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("no docker client on PATH")
    version = subprocess.run(
        [docker, "compose", "version"], capture_output=True, text=True, timeout=30
    )
    if version.returncode != 0:
        reason = (version.stderr or version.stdout).strip().splitlines()[:1]
        pytest.skip(f"`docker compose` is not available: {' '.join(reason)}")
    env = {**os.environ, "NEO4J_PASSWORD": "test-password-123"}
    result = subprocess.run(
        [docker, "compose", "-f", str(COMPOSE_FILE), "config", "-q"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_gitignore_keeps_the_password_file_out_and_nothing_else():
    git = shutil.which("git")
    if git is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = sorted(str(p.relative_to(REPO_ROOT)) for p in DOCKER_DIR.rglob("*")
                   if p.is_file() and p.name != ".env" and "__pycache__" not in p.parts)
    assert "docker/neo4j/guides/leakage.html" in files
    # --no-index: whether the rules match, tracked or not
    ignored = subprocess.run([git, "check-ignore", "--no-index", *files, "docker/.env"], cwd=REPO_ROOT,
                             capture_output=True, text=True, timeout=30).stdout.split()
    assert ignored == ["docker/.env"]
