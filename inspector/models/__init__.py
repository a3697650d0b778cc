"""The data model: towns, the regulated fleet, accounts and the audit log."""

# The names other areas use. Modules of this area import each other's modules, never
# this face: that keeps the import order free of circles.
from inspector.models.accounts import Role, User, UserSession
from inspector.models.audit import AuditDigest, AuditEntry
from inspector.models.calendar import CLOSURE_KINDS, TownCalendarYear, TownClosure
from inspector.models.credentials import (
    Credential,
    CredentialKind,
    PassengerReport,
    ReportCategory,
    ReportStatus,
    SigningKey,
)
from inspector.models.documents import NoticeDocument
from inspector.models.enforcement import (
    ANY_LIVE,
    APPEALABLE,
    AUTHORITY_LABELS,
    AWAITS_DELIVERY,
    CLOSABLE,
    COMPLIANCE_OVER,
    CONCLUDED,
    CONVERTIBLE,
    COPY_MEANS,
    DECIDED,
    DELIVERY_MEANS,
    EFFECTIVE,
    ENFORCEABLE,
    KIND_LABELS,
    LIVE,
    OPEN,
    PENDING,
    SETTLED,
    STATUS_LABELS,
    TERMINAL,
    VOID,
    Appeal,
    AppealStatus,
    EnforcementEvent,
    Fine,
    FinePayment,
    Notice,
    NoticeCompanyCopy,
    Sanction,
    SanctionStatus,
    TickState,
)
from inspector.models.inspections import Inspection, InspectionItem, InspectionStatus, ItemResult, Photo
from inspector.models.notifications import (
    DeliveryStatus,
    Notification,
    PushDelivery,
    PushSubscription,
    VapidKey,
)
from inspector.models.registry import (
    DatedValue,
    DecreeValue,
    Driver,
    DriverCategory,
    Holder,
    HolderKind,
    InsurancePolicy,
    Licence,
    LicenceKind,
    Municipality,
    Permit,
    PermitKind,
    Service,
    Stand,
    Status,
    StatusChange,
    Vehicle,
    VehicleKind,
    fold_name,
    vehicle_drivers,
)
from inspector.models.rule_packs import RulePackVersion
from inspector.models.stats import FleetStandingDay
from inspector.models.vistorias import (
    AppointmentStatus,
    InspectionKind,
    Vistoria,
    VistoriaAppointment,
    VistoriaPlace,
    VistoriaReminder,
    VistoriaResult,
    VistoriaSettings,
)

__all__ = [
    "ANY_LIVE", "APPEALABLE", "AUTHORITY_LABELS", "AWAITS_DELIVERY", "Appeal", "AppealStatus",
    "AppointmentStatus", "AuditDigest", "AuditEntry", "CLOSABLE", "CLOSURE_KINDS", "COMPLIANCE_OVER",
    "CONCLUDED", "CONVERTIBLE", "COPY_MEANS", "Credential", "CredentialKind", "DECIDED", "DELIVERY_MEANS",
    "DatedValue", "DecreeValue", "DeliveryStatus", "Driver", "DriverCategory", "EFFECTIVE", "ENFORCEABLE",
    "EnforcementEvent", "Fine", "FinePayment", "FleetStandingDay", "Holder", "HolderKind", "Inspection",
    "InspectionItem", "InspectionKind", "InspectionStatus", "InsurancePolicy", "ItemResult",
    "KIND_LABELS", "LIVE", "Licence", "LicenceKind", "Municipality", "Notice", "NoticeCompanyCopy",
    "NoticeDocument", "Notification", "OPEN", "PENDING", "PassengerReport", "Permit", "PermitKind",
    "Photo", "PushDelivery", "PushSubscription", "ReportCategory", "ReportStatus", "Role",
    "RulePackVersion", "SETTLED", "STATUS_LABELS", "Sanction", "SanctionStatus", "Service", "SigningKey",
    "Stand", "Status", "StatusChange", "TERMINAL", "TickState", "TownCalendarYear", "TownClosure", "User",
    "UserSession", "VOID", "VapidKey", "Vehicle", "VehicleKind", "Vistoria", "VistoriaAppointment",
    "VistoriaPlace", "VistoriaReminder", "VistoriaResult", "VistoriaSettings", "fold_name",
    "vehicle_drivers"
]
