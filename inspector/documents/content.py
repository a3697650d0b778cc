"""What a legal document says: a `Notice` (and its act, inspection, photos) read into a
`notice_pdf.Sheet`, in pt-BR, every legal statement with the law's own words.

Articles are quoted from the shipped law text (`rules.law_text(slug).unit(anchor)`), not
from the short quote a rule pack keeps: the offender reads the whole provision. Amounts,
deadlines and appeal windows are the ones the act was decided with (kept on the act).
"""
from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import UTC, date, datetime

from PIL import Image, ImageOps
from sqlalchemy import select

from inspector import clock, rules
from inspector.documents.pdf import PhotoEntry, Quote, Rows, Section, Sheet, Signature, Text
from inspector.enforcement import counting_of, deadline_rule
from inspector.extensions import db
from inspector.identifiers import format_cnpj, format_cpf, format_plate

# the inspections face loads its evidence module, which registers the HEIF opener for iPhone photos
from inspector.inspections import driver_told, photo_bytes
from inspector.models import AUTHORITY_LABELS, HolderKind, Inspection, Municipality, Notice, Photo, Sanction
from inspector.rules import (
    FINE_KINDS,
    UNDEFINED,
    ActKind,
    Money,
    brl,
)

TITLES = {"notice": "NOTIFICAÇÃO", "warning": "ADVERTÊNCIA ESCRITA",
          "infraction_record": "AUTO DE INFRAÇÃO", "decision": "DECISÃO ADMINISTRATIVA"}
KIND_NAMES = {"notice": "Notificação", "warning": "Advertência escrita",
              "infraction_record": "Auto de infração", "decision": "Decisão administrativa"}
SERVICES = {"taxi": "táxi", "mototaxi": "moto-táxi"}
APPEAL_TO = {"supervisor": "Secretaria competente (supervisão da fiscalização)",
             "mayor": "Prefeito(a) Municipal (Chefe do Poder Executivo)"}
# acts whose document says what to fix
FIX_KINDS = (ActKind.NOTICE, ActKind.WRITTEN_WARNING, ActKind.ORAL_WARNING, ActKind.DAILY_FINE)
MAX_QUOTE = 2500
THUMB_PX = 520


# --- small formatters -----------------------------------------------------------------------
def utc(value: datetime) -> datetime:
    """An aware UTC datetime (SQLite gives naive UTC values back)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def moment(value: datetime | None, act: Sanction) -> str:
    """dd/mm/aaaa às hh:mm on the clock of the act's town ("—" when unknown)."""
    if value is None:
        return "—"
    town = db.session.get(Municipality, act.municipality_id)
    return clock.town_moment(town, value).strftime("%d/%m/%Y às %H:%M")


def zone_words(act: Sanction) -> str:
    """Which clock the document's times are on: "horário de Mato Grosso", or the town's."""
    return clock.zone_label(db.session.get(Municipality, act.municipality_id), long=True)


def exif_moment(value: str) -> str:
    """The EXIF date of a photo ("2026-11-30T09:05:00-04:00") as people read it."""
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return value
    zone = t.strftime(" (UTC%z)") if t.tzinfo else " (fuso não gravado)"
    return t.strftime("%d/%m/%Y às %H:%M") + zone.replace("00)", ":00)")


def day(value: date | None) -> str:
    """dd/mm/aaaa ("—" when unknown)."""
    return value.strftime("%d/%m/%Y") if value else "—"


def clean(text: str) -> str:
    """Law text as a reader should see it: hyphens the source lost, one space."""
    text = text.replace("\ufffe", "-").replace("\u00ad", "")
    return re.sub(r"\s+", " ", text).strip()


def words(unit) -> str:
    """A unit's text with its children's, each child after its own marker ("I -", "§ 1º")."""
    parts = [unit.text]
    for child in unit.children:
        marker = child.marker if child.kind != "item" else f"{child.marker} -"
        parts.append(f"{marker} {words(child)}")
    return " ".join(p for p in parts if p)


def quote(cite: dict | None, pack: rules.RulePack | None) -> Quote | None:
    """The cited provision quoted in full from the law text (the pack's quote as fallback)."""
    if not cite:
        return None
    slug = cite.get("law_slug") or (pack.law_slug if pack else None)
    law = rules.law_text(slug) if slug else None
    unit = law.unit(cite["anchor"]) if law and cite.get("anchor") else None
    text = clean(words(unit) if unit else cite.get("quote", ""))
    if len(text) > MAX_QUOTE:
        text = text[:MAX_QUOTE].rsplit(" ", 1)[0] + " […]"
    label = cite.get("article") or (unit.label if unit else "")
    return Quote(f"{cite.get('law') or (pack.law if pack else '')}, {label}", text)


def breaches(first: dict | None) -> list[dict]:
    """Every article an act's breach citation names: the first, then those under "also" (an
    act chosen on an inspection with several failed items is for all of them)."""
    if not first:
        return []
    return [{k: v for k, v in first.items() if k != "also"}, *first.get("also", ())]


def _same(a: dict | None, b: dict | None) -> bool:
    return bool(a and b and a.get("anchor") == b.get("anchor")
                and a.get("law_slug") == b.get("law_slug"))


def _money(act: Sanction) -> Money:
    return Money(act.amount_unit, act.amount, act.amount_max, act.amount_per,
                 act.amount_decree_key, act.amount_brl, act.amount_basis or "")


def thumbnail(data: bytes | None) -> bytes | None:
    """A small JPEG of an evidence photo for the page (the original stays untouched)."""
    if not data:
        return None
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.draft("RGB", (THUMB_PX, THUMB_PX))
            img = ImageOps.exif_transpose(im).convert("RGB")
            img.thumbnail((THUMB_PX, THUMB_PX))
            out = io.BytesIO()
            img.save(out, "JPEG", quality=72)
            return out.getvalue()
    except Exception:  # noqa: BLE001 - an unreadable photo is listed with its hash only
        return None


def _pack(act: Sanction) -> rules.RulePack | None:
    return next((p for p in rules.load_all() if p.id == act.pack_id), None)


# --- sections -------------------------------------------------------------------------------
def _law_section(town, pack, act: Sanction) -> Section:
    rows = [("Município", f"{town.name} — Estado de Mato Grosso")]
    if pack is not None:
        rows.append(("Lei", f"{pack.law}, de {day(pack.span.start)} — {pack.title}"))
        rows.append(("Serviço", SERVICES.get(pack.service, pack.service).capitalize()))
    else:
        rows.append(("Lei", act.law))
    return Section("Lei aplicada", (Rows(tuple(rows)),))


def _facts_section(act: Sanction, insp: Inspection | None, parent: Notice | None) -> Section:
    rows: list[tuple[str, str]] = []
    v, h, d = act.vehicle, act.holder, act.driver
    if insp is not None:
        rows.append(("Vistoria", f"{moment(insp.started_at, act)} a {moment(insp.finished_at, act)}"
                                 f" ({zone_words(act)})"))
        if insp.lat is not None and insp.lon is not None:
            acc = f" (precisão de {insp.accuracy_m:.0f} m)" if insp.accuracy_m else ""
            rows.append(("Local (GPS)", f"{insp.lat:.6f}, {insp.lon:.6f}{acc}"))
        else:
            rows.append(("Local (GPS)", "posição não registrada pelo celular"))
    if v is not None:
        desc = ", ".join(x for x in (v.make_model, v.colour, str(v.year_of_manufacture)) if x)
        rows.append(("Veículo", f"placa {format_plate(v.plate)}"
                                + (f", prefixo {v.prefix}" if v.prefix else "") + f" — {desc}"))
    if h is not None:
        tax = format_cnpj(h.tax_id) if h.kind == HolderKind.COMPANY else format_cpf(h.tax_id)
        company = h.kind == HolderKind.COMPANY
        rows.append(("Titular da permissão", f"{h.name} — {'CNPJ' if company else 'CPF'} {tax}"))
    told = driver_told(insp) if insp is not None and d is None else None
    if d is not None:
        who = f"{d.name} — CPF {format_cpf(d.cpf)}, inscrição nº {d.registration_number}"
    elif told is not None and told.name:
        who = f"{told.name} — não cadastrado (nome informado pelo agente na vistoria)"
    elif insp is not None:
        who = "não identificado na vistoria"
    else:  # an act of the law itself, on a permit or a holder: no vistoria, no driver
        who = None
    if who:
        rows.append(("Condutor", who))
    item = act.inspection_item
    if item is not None:
        rows.append(("Item verificado", f"{item.label or item.item_id}: NÃO CONFORME"))
        rows.append(("Observação do agente", item.note.strip() or "—"))
    blocks: list = [Rows(tuple(rows))]
    if parent is not None:
        blocks.append(Text(f"Decorre da {KIND_NAMES.get(parent.document_kind, 'notificação').lower()}"
                           f" nº {parent.number}, não cumprida no prazo, que venceu em "
                           f"{moment(parent.deadline_at, act)}.", "strong"))
    elif insp is None:
        blocks.append(Text(f"Fato: {act.label}. Ato aplicado por força da lei, sem vistoria.",
                           "strong"))
    return Section("Fatos", tuple(blocks))


def _measure_section(act: Sanction, pack) -> Section:
    named = act.label.startswith(act.kind_label)   # "Suspensão — ..." names its kind already
    rows = [("Penalidade / medida", act.label if named else f"{act.kind_label}: {act.label}")]
    if act.automatic:
        rows.append(("Decisão", f"automática, por força da lei, em {moment(act.decided_at, act)}"))
    else:
        who = act.decided_by_user
        by = f"{who.name} ({who.role.label})" if who is not None else \
            AUTHORITY_LABELS.get(act.decided_by, act.decided_by)
        if act.decided_by == "mayor":
            rows.append(("Decisão", f"{AUTHORITY_LABELS['mayor']}, "
                                    f"{act.decision_ref or 'ato sem referência'}"))
            rows.append(("Registrada por", f"{by}, em {moment(act.decided_at, act)}"))
        else:
            rows.append(("Decisão", f"{by}, em {moment(act.decided_at, act)}"))
            if act.decision_ref:
                rows.append(("Ato do Prefeito", act.decision_ref))
    if act.reason:  # the facts a supervisor gave for a chosen sanction, or why it was amended
        rows.append(("Motivo", act.reason))
    rows += _suspension_rows(act)
    blocks: list = [Rows(tuple(rows))]
    cite = act.citation
    if any(_same(cite, b) for b in breaches(act.breach_citation)):
        blocks.append(Text(f"Fundamento: {cite.get('article')}, transcrito acima.", "strong"))
    elif cite:
        blocks.append(quote(cite, pack))
    return Section("Penalidade aplicada e seu fundamento", tuple(blocks))


def _suspension_rows(act: Sanction) -> list[tuple[str, str]]:
    """The period of a suspension, as decided (the pack bounds its length; no law sets it)."""
    if act.kind == ActKind.SUSPENSION and act.suspension_start is None and act.suspension_days \
            and act.notified_at is None and act.decided_at is not None:
        days = act.suspension_days
        if act.appeal_suspensive is True:
            return [("Período da suspensão",
                     f"{days} dias, a partir do dia seguinte ao último dia do prazo de recurso "
                     f"(que conta do recebimento deste documento), se não houver recurso; "
                     f"havendo recurso, os {days} dias contam da decisão que o negar")]
        return [("Período da suspensão", f"{days} dias, a contar do recebimento deste "
                                         "documento; ao fim do período o cadastro volta "
                                         "automaticamente à situação anterior")]
    if act.kind != ActKind.SUSPENSION or act.suspension_start is None:
        return []
    span = (f"suspenso de {day(act.suspension_start)} a {day(act.suspension_end)} "
            f"({act.suspension_days} dias)")
    if act.appeal_suspensive is True:  # the appeal holds it: it starts when the window closes
        return [("Período da suspensão",
                 f"{span}, se não houver recurso no prazo; havendo recurso, os "
                 f"{act.suspension_days} dias contam da decisão que o negar")]
    return [("Período da suspensão", f"{span}; ao fim do período o cadastro volta "
                                     "automaticamente à situação anterior")]


def _deadline_section(act: Sanction, pack) -> Section | None:
    if act.deadline_at is None and act.kind not in FIX_KINDS:
        return None  # a fine or a decision orders nothing to be fixed by a date
    blocks: list = []
    if act.required_action:
        blocks.append(Text(f"Providências necessárias: {act.required_action}", "strong"))
    if act.deadline_at is not None:
        tail = f"a contar da ciência ({moment(act.notified_at, act)})"
        span = f"{act.deadline_hours} horas {tail}" if act.deadline_hours else \
            _days_words(act, act.deadline_days, tail) if act.deadline_days else \
            f"{act.deadline_text or ''} {tail}"
        rule = deadline_rule(act)   # None for a deadline known only as a date and words
        rows = [("Prazo para cumprir", span), *([("Prazo fixado", rule)] if rule else []),
                ("Vence em", f"{moment(act.deadline_at, act)} ({zone_words(act)})")]
        if act.deadline_explain:   # the legal calendar's count, as issued
            rows.append(("Contagem", act.deadline_explain))
        blocks.append(Rows(tuple(rows)))
    elif act.deadline_hours or act.deadline_days:  # decided in the office: runs from delivery
        tail = "a contar do recebimento deste documento"
        span = f"{act.deadline_hours} horas {tail}, contadas minuto a minuto" \
            if act.deadline_hours else _days_words(act, act.deadline_days, tail)
        rule = deadline_rule(act)
        blocks.append(Rows((("Prazo para cumprir", span),
                            *([("Prazo fixado", rule)] if rule else []))))
    dq = act.deadline_citation
    if dq:
        blocks.append(quote(dq, pack))
    missed = act.on_missed
    if missed:
        cash = missed.get("money") or {}
        value = cash.get("text") or UNDEFINED
        if cash.get("brl_text") and cash.get("brl_text") != UNDEFINED:
            value += f" — {cash['brl_text']} ({cash.get('basis', '')})"
        elif cash:
            value += f" — valor em reais {UNDEFINED}"
        blocks.append(Rows((("Se não cumprir no prazo", f"{missed.get('label', '')}."),
                            ("Valor", value))))
        if cash.get("unit") == "minimum_wage":
            blocks.append(Text("Valor em reais pelo salário mínimo da data da vistoria; a multa "
                               "usa o salário mínimo vigente quando o prazo vencer.", "note"))
        if not _same(missed.get("citation"), dq):
            blocks.append(quote(missed.get("citation"), pack))
    title = "Providências e prazo" if act.deadline_at is not None or act.deadline_hours \
        or act.deadline_days else "Providências"
    return Section(title, tuple(b for b in blocks if b))


def _amount_section(act: Sanction) -> Section | None:
    if act.amount_unit is None and act.kind not in FINE_KINDS \
            and act.amount_decree_key is None:
        return None
    m = _money(act)
    rows = [("Valor na unidade da lei", m.text)]
    if act.amount_brl is not None:
        per = " por dia" if act.amount_per == "day" else ""
        rows.append(("Valor em reais", f"{'até ' if m.max is not None and m.amount is None else ''}"
                                       f"{brl(act.amount_brl)}{per}, em {day(act.amount_on)}"))
    else:
        rows.append(("Valor em reais", UNDEFINED))
    if act.amount_basis:
        rows.append(("Base do cálculo", act.amount_basis))
    if act.amount_per == "day":
        fine = act.fine
        start = fine.daily_start_at if fine is not None else act.notified_at
        rows.append(("Contagem", f"devida por dia a partir de {moment(start, act)}, até o "
                                 "cumprimento constatado em nova vistoria"))
    return Section("Valor", (Rows(tuple(rows)),))


def _days_words(act: Sanction, n: int, tail: str) -> str:
    """"10 dias a contar da ciência (Lei 9.784/1999, art. 66)" or "10 dias úteis ... (CPC,
    art. 219; Lei 030/1998, Art. 16, § 2º)": a period in days as the act's law counts it."""
    c = counting_of(act)
    if c.rule == "business":
        cite = c.citation
        return f"{n} dias úteis {tail} (CPC, art. 219; {cite.law}, {cite.article})"
    return f"{n} dias {tail} (Lei 9.784/1999, art. 66)"


def _last_day_words(act: Sanction, n: int) -> str:
    """The last day of a period not yet started (the document's delivery starts it)."""
    if counting_of(act).rule == "business":
        return f"o {n}º dia útil após o recebimento deste documento"
    return (f"o {n}º dia após o recebimento deste documento; se nele a Prefeitura não abrir, o "
            f"primeiro dia seguinte em que abrir (Lei 9.784/1999, art. 66, § 1º)")


def _appeal_section(act: Sanction, town, pack) -> Section:
    if act.appeal_days is None and act.appeal_citation is None:
        return Section("Recurso", (Text("A lei não prevê prazo de recurso para este ato. "
                                        "Fica assegurado o direito de petição à Prefeitura."),))
    if act.appeal_suspensive is True:
        effect = "sim: a penalidade fica suspensa até a decisão do recurso"
    elif act.appeal_suspensive is False:
        effect = "não: a penalidade vale enquanto o recurso é julgado"
    else:
        effect = "a lei não diz; a penalidade vale enquanto o recurso não for decidido"
    if act.appeal_days and act.appeal_until is None:  # decided in the office: from delivery
        # counted from the delivery's day by the act's law (enforcement.deadlines)
        span = (_days_words(act, act.appeal_days, "a contar do recebimento deste documento"),
                _last_day_words(act, act.appeal_days))
    else:
        span = (_days_words(act, act.appeal_days, "a contar da ciência") if act.appeal_days
                else "a lei não fixa prazo", day(act.appeal_until))
    rows = [("Prazo", span[0]), ("Último dia", span[1])]
    if act.appeal_until is not None and act.appeal_explain:   # the count, as issued
        rows.append(("Contagem", act.appeal_explain))
    rows += [("Dirigido a", APPEAL_TO.get(act.appeal_to or "", act.appeal_to or "—")),
             ("Efeito suspensivo", effect),
             ("Como recorrer", f"por escrito, protocolado na Prefeitura Municipal de {town.name}, "
                               "com o número deste documento e as razões do recurso")]
    blocks: list = [Rows(tuple(rows))]
    q = quote(act.appeal_citation, pack)
    if q:
        blocks.append(q)
    return Section("Recurso", tuple(blocks))


def _photos_section(act: Sanction, insp: Inspection | None) -> Section | None:
    if insp is None or act.inspection_item_id is None:
        return None
    photos = db.session.scalars(select(Photo).where(Photo.item_id == act.inspection_item_id)
                                .order_by(Photo.position)).all()
    blocks: list = []
    for n, ph in enumerate(photos, start=1):
        rows = [("Capturada (relógio do celular)", moment(ph.taken_at, act))]
        if ph.exif_taken_at:
            rows.append(("Data gravada na foto (EXIF)", exif_moment(ph.exif_taken_at)))
        if ph.exif_lat is not None and ph.exif_lon is not None:
            rows.append(("Posição gravada na foto", f"{ph.exif_lat:.6f}, {ph.exif_lon:.6f}"))
        rows.append(("Recebida no servidor", moment(ph.received_at, act) + " — o arquivo confere "
                     "com o SHA-256" if ph.received_at else "arquivo ainda não recebido"))
        blocks.append(PhotoEntry(f"Foto {n} de {len(photos)} ({ph.mime}, {ph.size} bytes)",
                                 ph.sha256, tuple(rows), thumbnail(photo_bytes(ph))))
    if not blocks:
        blocks.append(Text("Nenhuma foto foi registrada para este item."))
    blocks.append(Text(f"Registro da vistoria como recebido do celular (JSON canônico), "
                       f"SHA-256: {insp.body_sha256}", "note"))
    blocks.append(Text("O SHA-256 identifica o arquivo original de cada foto, guardado sem "
                       "alteração: qualquer cópia pode ser conferida com ele.", "note"))
    return Section("Provas (fotos da vistoria)", tuple(blocks))


def _agent_section(insp: Inspection | None, act: Sanction) -> Section:
    agent = insp.agent if insp is not None else None
    if agent is None:
        return Section("Identificação do agente", (Text("Ato sem vistoria: não há agente "
                                                        "autuante."),))
    rows = (("Agente de fiscalização", agent.name),
            ("Crachá / matrícula nº", agent.badge_number or "não cadastrado"))
    return Section("Identificação do agente", (Rows(rows),))


RECEIPT = ("Recebi a via deste documento em ____/____/________.  Nome: "
           "______________________  Assinatura: ______________________")


NO_NAME = "nome não informado"


def _ack_section(notice: Notice, act: Sanction, insp: Inspection | None) -> Section:
    """The "ciente" (Tapurah Art. 27, I) as the review page shows it: the signature whenever
    one was drawn (with the name, or "nome não informado" from an older app), the name alone
    when nobody signed."""
    signed = bool(notice.ack_signature_sha256)
    # notices issued before a signature without a name counted kept no ack_at: the
    # inspection's end is when it was drawn
    ack_at = notice.ack_at or (insp.finished_at if signed and insp is not None else None)
    signed_here = bool((notice.ack_name or signed) and ack_at and act.notified_at
                       and abs((utc(act.notified_at) - utc(ack_at)).total_seconds()) < 60)
    png = None
    if signed and insp is not None:
        png = db.session.scalar(select(Inspection.ack_signature).where(Inspection.id == insp.id))
    if signed_here:  # handed over and signed on the street ("ciente", Tapurah Art. 27, I)
        rows = (("Nome", notice.ack_name or NO_NAME), ("Data e hora", moment(ack_at, act)))
        return Section("Ciente do condutor", (Signature(rows, png, notice.ack_signature_sha256),))
    blocks: list = []
    if signed:
        rows = (("Nome", notice.ack_name or NO_NAME),
                ("Data e hora", moment(ack_at, act) + " (na vistoria)"))
        blocks.append(Signature(rows, png, notice.ack_signature_sha256))
        blocks.append(Text(f"Na vistoria, {notice.ack_name or 'o condutor (' + NO_NAME + ')'} "
                           f"assinou o ciente em {moment(ack_at, act)} (assinatura no registro da "
                           f"vistoria, SHA-256 {notice.ack_signature_sha256}). Este documento "
                           f"foi emitido depois e é entregue ao notificado.", "note"))
    elif notice.ack_name:
        blocks.append(Text(f"Na vistoria, {notice.ack_name} deu ciente em "
                           f"{moment(ack_at, act)}, sem assinatura na tela. Este documento foi "
                           f"emitido depois e é entregue ao notificado.", "note"))
    blocks.append(Text(RECEIPT))
    return Section("Ciente", tuple(blocks))


# --- the sheet ------------------------------------------------------------------------------
def _anchor_section(anchor: tuple[int, str]) -> Section:
    seq, digest = anchor
    return Section("Registro de auditoria", (
        Text(f"Na emissão deste documento, o registro de auditoria da prefeitura (cada "
             f"alteração de cadastro, vistoria e ato, encadeada por SHA-256) terminava na "
             f"entrada nº {seq}, de código SHA-256:"),
        Text(digest, "strong"),
        Text("Quem guarda este documento pode pedir a conferência: um registro que não "
             "contenha esta entrada com este código foi truncado ou alterado depois da "
             "emissão.", "note")))


def build_sheet(notice: Notice, *, url: str, access_code: str | None,
                holder_url: str | None = None,
                anchor: tuple[int, str] | None = None) -> Sheet:
    """Everything printed on the document of `notice`; `anchor`: the audit log's last entry
    at issuance (seq, hash), printed so that every copy witnesses the log."""
    act: Sanction = notice.sanction
    town = db.session.get(Municipality, notice.municipality_id)
    pack = _pack(act)
    insp = db.session.get(Inspection, act.inspection_id) if act.inspection_id else None
    parent = None
    if act.parent_id:
        parent = db.session.scalar(select(Notice).where(Notice.sanction_id == act.parent_id))
    sections = [_law_section(town, pack, act), _facts_section(act, insp, parent)]
    breach = tuple(q for q in (quote(c, pack) for c in breaches(act.breach_citation)) if q)
    if breach:
        sections.append(Section("Dispositivo infringido", breach))
    sections.append(_measure_section(act, pack))
    sections += [s for s in (_deadline_section(act, pack), _amount_section(act)) if s]
    sections.append(_appeal_section(act, town, pack))
    photos = _photos_section(act, insp)
    if photos:
        sections.append(photos)
    sections += [_agent_section(insp, act), _ack_section(notice, act, insp)]
    title = TITLES.get(notice.document_kind, "DOCUMENTO")
    service = SERVICES.get(pack.service, "") if pack else ""
    return anchored(Sheet(
        number=notice.number, title=title,
        header=(f"PREFEITURA MUNICIPAL DE {town.name.upper()}", "Estado de Mato Grosso",
                f"Fiscalização do transporte de passageiros — {service}".rstrip(" —")),
        lead=(act.label, f"Emitido em {moment(notice.issued_at, act)} ({zone_words(act)})"),
        sections=tuple(sections), url=url, access_code=access_code, holder_url=holder_url,
        author=f"Prefeitura Municipal de {town.name}",
        subject=f"{KIND_NAMES.get(notice.document_kind, '')} {notice.number} — {act.law}",
        footer=f"{KIND_NAMES.get(notice.document_kind, '')} nº {notice.number} · "
               f"Prefeitura Municipal de {town.name} · {act.law}"), anchor)


def anchored(sheet: Sheet, anchor: tuple[int, str] | None) -> Sheet:
    """The sheet with the audit log's tail (seq, hash) printed as its last part (None: as is)."""
    if not anchor:
        return sheet
    return replace(sheet, sections=sheet.sections + (_anchor_section(anchor),))


__all__ = ["KIND_NAMES", "TITLES", "anchored", "build_sheet", "clean", "moment", "quote",
           "thumbnail"]
