"""What the town's dashboard and open data read: the fleet's standing recorded once a day
(its trend), and the indexes that let a period's counts be read from index entries only.

The indexes are declared here, beside the one table the dashboard owns, so that the models
they index stay as their areas wrote them; migration 0022 creates them.
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, Index, Integer, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from inspector.extensions import db
from inspector.models.credentials import PassengerReport
from inspector.models.enforcement import FinePayment, Sanction
from inspector.models.inspections import Inspection, InspectionItem
from inspector.models.registry import Service, TownScoped, _enum


class FleetStandingDay(TownScoped, db.Model):
    """A town's fleet of one service on one local day: how many vehicles, how many regular,
    irregular and suspended (written when the day's standing is first computed)."""

    __tablename__ = "fleet_standing_days"
    __table_args__ = (UniqueConstraint("municipality_id", "day", "service"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    day: Mapped[date] = mapped_column(Date)
    service: Mapped[Service] = mapped_column(_enum(Service))
    vehicles: Mapped[int] = mapped_column(Integer)
    regular: Mapped[int] = mapped_column(Integer)
    irregular: Mapped[int] = mapped_column(Integer)
    suspended: Mapped[int] = mapped_column(Integer)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# A period's inspections by local day and agent, and whether they failed something: the
# range of one town's finishing moments, read from the index alone.
Index("ix_inspections_town_finished_agent", Inspection.municipality_id, Inspection.finished_at,
      Inspection.agent_id, Inspection.failed_items)
# The failed answers of an inspection, without reading its other answers' rows.
Index("ix_inspection_items_result", InspectionItem.inspection_id, InspectionItem.result,
      InspectionItem.item_id)
# A period's acts by kind and state (awaiting delivery reads notified_at and decided_at).
Index("ix_sanctions_town_proposed", Sanction.municipality_id, Sanction.proposed_at, Sanction.kind,
      Sanction.status, Sanction.notified_at, Sanction.decided_at)
# A period's payments and passenger reports.
Index("ix_fine_payments_town_paid", FinePayment.municipality_id, FinePayment.paid_on)
Index("ix_passenger_reports_town_created", PassengerReport.municipality_id,
      PassengerReport.created_at)
