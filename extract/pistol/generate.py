"""Generate a PISTOL-style contract QA dataset over any graph.

PISTOL (Qiu, Shen et al. 2024, arXiv:2406.16810) turns a small hand-drawn graph into
contracts: each edge is a sales contract between two companies or an employment contract
between a company and a person, told as 20 question/answer pairs. This module does the
same over an arbitrary edge list (see ``extract.pistol.topology``), seeded, so that datasets of
any size and shape can be audited. The wording comes from the versioned templates
(``extract.pistol.templates``), so ``extract.pistol.load.load_pistol`` reads the output
back and recovers the graph.

What follows the original generator, and what we changed:

* Same: value distributions (dates 1980..2019, quantities and unit prices 1..100, total =
  quantity * unit price, ...), name/address shapes ("Abcdef GmbH", "Abcd Efgh",
  "094 Abcdef Road"), one name and one address per node across all its contracts, fresh
  delivery/work address per contract, seller picked at random between the two endpoints,
  employer = first label of an employment edge, goods and jobs taken by contract index,
  sales contracts emitted first (in edge-list order), then employment contracts.
* Changed: everything draws from one ``random.Random(seed)``, so output is reproducible;
  names are unique within a dataset (redrawn on collision) so the loader can tell parties
  apart; the goods/job index wraps around (``i % len``) so any number of edges works;
  which nodes are persons is chosen here (``employment_fraction``) instead of by hand.

Example::

    >>> from extract.pistol.topology import build_topology
    >>> records = generate_pistol(build_topology("chain", 5), seed=1, employment_fraction=0.3)
    >>> write_dataset(records, "chain5.json")
"""

from __future__ import annotations

import calendar
import io
import json
import random
import string
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from graphstore.errors import ConfigError, InputDataError

from extract.atomic import atomic_output
from extract.jsonfile import read_json
from extract.pistol.templates import TemplateSet, load_templates

VALUES_FILE = "pistol_values.v1.json"

# The original generator's suffix and street lists (common_content_gen.py).
COMPANY_TYPES = ("Ltd", "Inc", "Corp", "LLC", "PLC", "GmbH", "AG", "SA", "SARL", "SRL", "BV", "BVBA",
                 "NV", "SE", "SAS")
STREET_TYPES = ("Street", "Road", "Lane", "Drive", "Avenue", "Boulevard", "Court", "Crescent", "Highway",
                "Terrace", "Way", "Place", "Square", "Alley", "Circle")

FIRST_YEAR, LAST_YEAR = 1980, 2019

# data_input.json keys (PISTOL's spelling, 'job_pisition' included) -> our field names.
_VALUE_KEYS = {
    "goods_items": "goods",
    "sale_parties": "sale_parties",
    "governing_law": "governing_laws",
    "job_pisition": "job_positions",
    "employer_benefit_plans": "benefit_plans",
    "salary_frequency": "salary_frequencies",
}


@dataclass(frozen=True)
class PistolValues:
    """The word lists contract values are drawn from (PISTOL's ``data_input.json``)."""

    goods: tuple  # the i-th sales contract sells goods[i % len]
    sale_parties: tuple  # who decides shipping / bears its cost: ("Seller", "Customer")
    governing_laws: tuple
    job_positions: tuple  # the i-th employment contract hires for job_positions[i % len]
    benefit_plans: tuple
    salary_frequencies: tuple
    source: str


@dataclass(frozen=True)
class _Party:
    name: str
    address: str


def load_values(path: str | Path | None = None) -> PistolValues:
    """Read a PISTOL ``data_input.json``; by default the copy shipped with this package.

    Raises:
        InputDataError: the file is unreadable, not JSON, or a list is missing or holds
            something other than non-empty strings.
    """
    if path is None:
        resource = resources.files("extract").joinpath("data", VALUES_FILE)
        where: str | Path = f"extract/data/{VALUES_FILE}"
        try:
            raw = json.loads(resource.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise InputDataError(where, f"cannot read the packaged value lists: {e}") from e
    else:
        where = Path(path)
        raw = read_json(where)
    if not isinstance(raw, dict):
        raise InputDataError(where, f"expected a JSON object with keys {', '.join(_VALUE_KEYS)}")
    fields = {}
    for key, field in _VALUE_KEYS.items():
        items = raw.get(key)
        if not isinstance(items, list) or not items:
            raise InputDataError(
                where, f"'{key}' must be a non-empty list of strings (a PISTOL data_input.json has "
                       f"{', '.join(_VALUE_KEYS)})")
        for i, item in enumerate(items):
            if not isinstance(item, str) or not item.strip() or item != item.strip():
                raise InputDataError(where, f"'{key}' item {i} is {item!r}; every item must be a non-empty "
                                            "string without leading or trailing spaces")
        fields[field] = tuple(items)
    return PistolValues(source=str(where), **fields)


def generate_pistol(edges: Iterable[Sequence[str]], seed: int = 0, employment_fraction: float = 0.0,
                    data_input: str | Path | None = None,
                    templates: TemplateSet | None = None) -> list[dict]:
    """Generate 20 PISTOL QA records per edge; see ``iter_pistol`` for the arguments.

    Returns:
        ``[{"question", "answer", "edge"}, ...]``, sales contracts first, then employment.
    """
    return list(iter_pistol(edges, seed, employment_fraction, data_input, templates))


def iter_pistol(edges: Iterable[Sequence[str]], seed: int = 0, employment_fraction: float = 0.0,
                data_input: str | Path | None = None,
                templates: TemplateSet | None = None) -> Iterator[dict]:
    """Yield the records of ``generate_pistol`` one by one (constant memory per contract).

    Args:
        edges: ``(u, v)`` node-id pairs, e.g. from ``extract.pistol.topology``; ids must be
            non-empty strings without ``_``, no self-loops, no repeated pairs.
        seed: all randomness comes from ``random.Random(seed)``; the same edges, seed,
            fraction, values and templates give the same records.
        employment_fraction: about this share of the edges become employment contracts.
            Person nodes are picked greedily in seeded random order, never two adjacent,
            until about this many edges touch one; those edges are employment contracts
            labelled ``employer_employee``. All other edges are sales contracts between two
            companies, labelled ``u_v`` as given.
        data_input: a PISTOL ``data_input.json`` to draw goods, jobs, laws... from;
            default the package's ``pistol_values.v1.json``.
        templates: question templates; default ``load_templates()``.

    Raises:
        ConfigError: bad edges, seed or fraction, or templates asking for an attribute this
            generator does not produce.
        InputDataError: an unusable ``data_input`` file.
    """
    edge_list, neighbours = _check_edges(edges)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"the seed must be a whole number, got {seed!r}")
    if (isinstance(employment_fraction, bool) or not isinstance(employment_fraction, (int, float))
            or not 0.0 <= employment_fraction <= 1.0):
        raise ConfigError(f"employment_fraction must be a number in [0, 1], got {employment_fraction!r}")
    values = load_values(data_input)
    templates = templates or load_templates()
    sales_type, employment_type = _contract_types(templates)

    rng = random.Random(seed)
    persons = _choose_persons(neighbours, len(edge_list), employment_fraction, rng)
    parties = _name_parties(neighbours, persons, rng)
    sales = [(u, v) for u, v in edge_list if u not in persons and v not in persons]
    employment = [(v, u) if u in persons else (u, v) for u, v in edge_list if u in persons or v in persons]
    suffix = templates.answer_suffix

    for i, (u, v) in enumerate(sales):
        label = f"{u}_{v}"
        seller, customer = (parties[u], parties[v]) if rng.randint(0, 1) == 0 else (parties[v], parties[u])
        answers = _sales_values(rng, values, i, seller, customer)
        placeholders = {"seller": seller.name, "customer": customer.name, "effective_date": answers["effective_date"]}
        for attribute in sales_type.attributes:
            yield {"question": attribute.render_question(**placeholders),
                   "answer": attribute.render_answer(answers[attribute.name], suffix), "edge": label}

    for i, (company, person) in enumerate(employment):
        label = f"{company}_{person}"
        employer, employee = parties[company], parties[person]
        answers = _employment_values(rng, values, i, employer, employee)
        placeholders = {"employer": employer.name, "employee": employee.name, "start_date": answers["start_date"]}
        for attribute in employment_type.attributes:
            yield {"question": attribute.render_question(**placeholders),
                   "answer": attribute.render_answer(answers[attribute.name], suffix), "edge": label}


def write_dataset(records: Iterable[dict], path: str | Path) -> int:
    """Write records as a JSON list, one record per line, atomically; return how many.

    The text is ``"[\\n" + ",\\n".join(json.dumps(r, ensure_ascii=False)) + "\\n]\\n"``,
    streamed record by record into a temporary file beside ``path`` that then replaces it,
    so a reader never sees half a file and an iterator of millions of records needs no
    list in memory.

    Raises:
        ConfigError: the file cannot be written (the message names it).
    """
    path = Path(path)
    encode = json.JSONEncoder(ensure_ascii=False).encode
    count = 0
    with atomic_output(path, "dataset") as raw, io.TextIOWrapper(raw, encoding="utf-8", newline="\n") as f:
        f.write("[\n")
        for record in records:
            if count:
                f.write(",\n")
            f.write(encode(record))
            count += 1
        f.write("\n]\n")
    return count


def _check_edges(edges: Iterable[Sequence[str]]) -> tuple[list, dict]:
    """Validate the edge list; return it as tuples and each node's neighbours (insertion-ordered)."""
    edge_list: list[tuple[str, str]] = []
    neighbours: dict[str, list[str]] = {}
    seen: dict[frozenset, int] = {}
    for i, edge in enumerate(edges):
        if isinstance(edge, str) or not isinstance(edge, Sequence) or len(edge) != 2:
            raise ConfigError(f"edge {i} is {edge!r}; an edge is a pair of node ids (u, v)")
        u, v = edge
        for node in (u, v):
            if not isinstance(node, str) or not node or node != node.strip():
                raise ConfigError(f"edge {i} ({u!r}, {v!r}): node ids must be non-empty strings without "
                                  "surrounding spaces")
            if "_" in node:
                raise ConfigError(f"edge {i} ({u!r}, {v!r}): node id {node!r} contains '_', which PISTOL edge "
                                  "labels 'U_V' reserve as the separator")
        if u == v:
            raise ConfigError(f"edge {i} ({u!r}, {v!r}) is a self-loop; an edge joins two different nodes")
        pair = frozenset((u, v))
        if pair in seen:
            raise ConfigError(f"edge {i} ({u!r}, {v!r}) repeats edge {seen[pair]} (edges are undirected)")
        seen[pair] = i
        edge_list.append((u, v))
        neighbours.setdefault(u, []).append(v)
        neighbours.setdefault(v, []).append(u)
    if not edge_list:
        raise ConfigError("the graph has no edges; a PISTOL dataset needs at least one contract")
    return edge_list, neighbours


def _choose_persons(neighbours: dict, edge_count: int, fraction: float, rng: random.Random) -> set:
    """Pick person nodes, never two adjacent, so that about ``fraction`` of the edges touch one.

    Persons form an independent set, so the edges touching them are disjoint per person and
    their count is the sum of the persons' degrees. Nodes are tried in seeded random order;
    one is taken when it has no person neighbour and taking it brings the count closer to
    the target (a hub that would overshoot far is passed over).
    """
    target = round(fraction * edge_count)
    if target == 0:
        return set()
    order = list(neighbours)
    rng.shuffle(order)
    persons: set[str] = set()
    covered = 0
    for node in order:
        if covered >= target:
            break
        degree = len(neighbours[node])
        if abs(covered + degree - target) >= target - covered:
            continue
        if any(n in persons for n in neighbours[node]):
            continue
        persons.add(node)
        covered += degree
    return persons


def _letters(rng: random.Random, k: int) -> str:
    return "".join(rng.choices(string.ascii_lowercase, k=k)).capitalize()


def _address(rng: random.Random) -> str:
    return f"{rng.randint(0, 999):03d} {_letters(rng, 6)} {rng.choice(STREET_TYPES)}"


def _date(rng: random.Random) -> str:
    year = rng.randint(FIRST_YEAR, LAST_YEAR)
    month = rng.randint(1, 12)
    day = rng.randint(1, calendar.monthrange(year, month)[1])
    return f"{day:02d}-{month:02d}-{year}"


def _name_parties(neighbours: dict, persons: set, rng: random.Random) -> dict:
    """One name and one address per node, in first-appearance order; names never repeat."""
    used: set[str] = set()
    parties = {}
    for node in neighbours:
        while True:
            if node in persons:
                name = f"{_letters(rng, 4)} {_letters(rng, 4)}"
            else:
                name = f"{_letters(rng, 6)} {rng.choice(COMPANY_TYPES)}"
            if name not in used:
                break
        used.add(name)
        parties[node] = _Party(name, _address(rng))
    return parties


def _sales_values(rng: random.Random, values: PistolValues, index: int, seller: _Party,
                  customer: _Party) -> dict:
    # Drawn in the original's order: date, good, quantity, price, invoice, payment, penalty, ...
    answers = {"effective_date": _date(rng), "seller_name": seller.name, "seller_address": seller.address,
               "customer_name": customer.name, "customer_address": customer.address,
               "good": values.goods[index % len(values.goods)]}
    quantity, unit_price = rng.randint(1, 100), rng.randint(1, 100)
    answers.update(
        quantity=quantity, unit_price=unit_price, total_price=quantity * unit_price,
        invoice_days_after_delivery=rng.randint(1, 5),
        invoice_payment_days=rng.randrange(5, 31, 5),
        late_penalty_after_days=rng.randrange(5, 31, 5),
        late_interest_rate_percent=rng.randint(1, 5),
        delivery_address=_address(rng),
        shipping_method_decider=rng.choice(values.sale_parties),
        shipping_cost_bearer=rng.choice(values.sale_parties),
        warranty_years=rng.randint(1, 5),
        defect_notice_days=rng.randrange(5, 31, 5),
        cooling_off_days=rng.randint(3, 14),
        governing_law=rng.choice(values.governing_laws),
    )
    return answers


def _employment_values(rng: random.Random, values: PistolValues, index: int, employer: _Party,
                       employee: _Party) -> dict:
    return {
        "employer_name": employer.name, "employer_address": employer.address,
        "employee_name": employee.name, "employee_address": employee.address,
        "start_date": _date(rng),
        "employment_months": rng.randint(6, 48),
        "job_position": values.job_positions[index % len(values.job_positions)],
        "work_location": _address(rng),
        "work_start_hour": rng.randint(6, 10),
        "work_end_hour": rng.randint(14, 18),
        "hourly_pay": rng.randint(10, 100),
        "salary_frequency": rng.choice(values.salary_frequencies),
        "benefit": rng.choice(values.benefit_plans),
        "holiday_days": rng.randint(10, 30),
        "confidentiality_months": rng.randint(3, 12),
        "sick_leave_days": rng.randint(7, 14),
        "termination_notice_weeks": rng.randint(2, 12),
        "non_compete_months": rng.randint(6, 24),
        "change_notice_weeks": rng.randint(2, 8),
        "governing_law": rng.choice(values.governing_laws),
    }


# The attributes the generator fills, per contract type; templates may not ask for others.
_PRODUCED = {
    "sales": {"effective_date", "seller_name", "seller_address", "customer_name", "customer_address", "good",
              "quantity", "unit_price", "total_price", "invoice_days_after_delivery", "invoice_payment_days",
              "late_penalty_after_days", "late_interest_rate_percent", "delivery_address",
              "shipping_method_decider", "shipping_cost_bearer", "warranty_years", "defect_notice_days",
              "cooling_off_days", "governing_law"},
    "employment": {"employer_name", "employer_address", "employee_name", "employee_address", "start_date",
                   "employment_months", "job_position", "work_location", "work_start_hour", "work_end_hour",
                   "hourly_pay", "salary_frequency", "benefit", "holiday_days", "confidentiality_months",
                   "sick_leave_days", "termination_notice_weeks", "non_compete_months",
                   "change_notice_weeks", "governing_law"},
}


def _contract_types(templates: TemplateSet) -> tuple:
    found = []
    for domain, produced in _PRODUCED.items():
        contract_type = templates.types.get(domain)
        if contract_type is None:
            raise ConfigError(f"templates {templates.version} have no '{domain}' contract type; "
                              f"the generator needs {', '.join(_PRODUCED)}")
        unknown = [a for a in contract_type.attribute_names if a not in produced]
        if unknown:
            raise ConfigError(f"templates {templates.version} ask about {', '.join(unknown)} in {domain} "
                              f"contracts, which the generator does not produce; it produces "
                              f"{', '.join(sorted(produced))}")
        found.append(contract_type)
    return tuple(found)
