"""How a holder proves that a finding is fixed, read from the pack: what the finding is about
(a checklist item's section, an engine rule's document), whether the vehicle is presented or a
document brought, and where: at the vistoria where the law sets one for what the vistoria
checks (its kinds' `checks` and `performed_by`, with their articles), at the town hall
otherwise. Pure: no database, no web framework."""
from __future__ import annotations

from dataclasses import dataclass

from inspector.rules.engine import Rules
from inspector.rules.results import Citation

# An engine rule's family -> (the pack's requirement that cites it, what to bring, gender of
# the document for the sentence). The words are the product's; the article is the pack's.
DOCUMENTS = {
    "insurance.": ("requirements.insurance", "a apólice do seguro obrigatório em vigor"),
    "licence.": ("requirements.licence", "o Alvará em vigor (peça a renovação ou a regularização "
                                         "na Prefeitura)"),
    "permit.": ("requirements.permit", "a permissão em vigor (peça a regularização na "
                                       "Prefeitura)"),
    "driver.registration.": ("requirements.driver_registration",
                             "o registro de condutor renovado (peça a renovação na Prefeitura)"),
    "driver.cnh.": ("requirements.cnh", "a CNH válida, na categoria exigida"),
}
VEHICLE_RULES = ("vehicle.",)
VISTORIA_RULES = ("vistoria.",)


@dataclass(frozen=True)
class Proof:
    """What the holder does to prove the finding fixed."""

    how: str                   # present_vehicle | bring_document | comply
    what: str                  # pt-BR: the vehicle to present or the document to bring
    where: str                 # vistoria | office | street
    citation: Citation | None  # the article that makes it so (the vistoria's, the document's)
    vistoria_kind: str | None = None   # prior | periodic, when `where` is vistoria


def _vistoria_for(r: Rules, item) -> tuple[str, Citation] | None:
    """The law's vistoria that checks this item (periodic first), with its article."""
    kinds = sorted(r.pack.vistoria.kinds, key=lambda k: k.kind != "periodic")
    for k in kinds:
        if k.covers(item):
            return k.kind, k.citation
    return None


def proof_of(r: Rules, rule_id: str) -> Proof | None:
    """How a finding of `rule_id` (a checklist item id or an engine rule id) is proven fixed
    under these rules; None when the pack knows nothing of it."""
    item = next((i for i in r.pack.checklist if i.id == rule_id), None)
    if item is not None:
        if item.checks in ("vehicle", "equipment"):
            found = _vistoria_for(r, item)
            what = f"o veículo com o item corrigido: {item.label.lower()}"
            if found is not None:
                return Proof("present_vehicle", what, "vistoria", found[1], found[0])
            return Proof("present_vehicle", what, "office", item.citation)
        if item.checks == "document":
            return Proof("bring_document", f"o documento em ordem: {item.label.lower()}", "office",
                         item.citation)
        # the driver's attire, passengers, conduct: seen again on the street, nothing to bring
        return Proof("comply", item.label, "street", item.citation)
    for family, (path, what) in DOCUMENTS.items():
        if rule_id.startswith(family):
            return Proof("bring_document", what, "office", r.cite(path))
    if rule_id.startswith(VISTORIA_RULES) or rule_id.startswith(VEHICLE_RULES):
        # a lapsed vistoria: the periodic one; a vehicle out of the law's limits: the new one's
        # prior vistoria
        kind = "periodic" if rule_id.startswith(VISTORIA_RULES) else "prior"
        k = r.pack.vistoria.kind(kind) or r.pack.vistoria.kind("prior")
        what = ("o veículo para a vistoria" if kind == "periodic"
                else "o veículo que substitui este, dentro dos limites da lei")
        if k is not None:
            return Proof("present_vehicle", what, "vistoria", k.citation, k.kind)
        return Proof("present_vehicle", what, "office", None)
    return None
