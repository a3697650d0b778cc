"""The data model: towns, the regulated fleet, accounts and the audit log."""
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
from inspector.models.inspections import (
    Inspection,
    InspectionItem,
    InspectionStatus,
    ItemResult,
    Photo,
)
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
    "AWAITS_DELIVERY",
    "AuditDigest", "AuditEntry", "DatedValue", "DecreeValue", "Driver", "DriverCategory", "Holder",
    "HolderKind",
    "InsurancePolicy", "Licence", "LicenceKind", "Municipality", "Permit", "PermitKind",
    "Role", "Service", "Stand", "Status", "StatusChange", "User", "UserSession", "Vehicle",
    "VehicleKind", "vehicle_drivers", "RulePackVersion",
]
__all__ += ["Credential", "CredentialKind", "PassengerReport", "ReportCategory",
            "ReportStatus", "SigningKey"]
__all__ += ["Inspection", "InspectionItem", "InspectionStatus", "ItemResult", "Photo"]
__all__ += ["Appeal", "AppealStatus", "EnforcementEvent", "Fine", "FinePayment", "Notice",
            "Sanction", "SanctionStatus", "TickState"]
__all__ += ["DeliveryStatus", "Notification", "PushDelivery", "PushSubscription", "VapidKey"]
__all__ += ["NoticeDocument"]
__all__ += ["fold_name"]
__all__ += ["CLOSURE_KINDS", "TownCalendarYear", "TownClosure"]
__all__ += ["FleetStandingDay"]
# the acts' labels and states, and the company's copy, for the areas that show or count acts
__all__ += ["AUTHORITY_LABELS", "COPY_MEANS", "DELIVERY_MEANS", "EFFECTIVE", "KIND_LABELS", "STATUS_LABELS",
            "NoticeCompanyCopy"]
# the named sets of an act's statuses
__all__ += ["ANY_LIVE", "APPEALABLE", "CLOSABLE", "COMPLIANCE_OVER", "CONCLUDED", "CONVERTIBLE", "DECIDED",
            "ENFORCEABLE", "LIVE", "OPEN", "PENDING", "SETTLED", "TERMINAL", "VOID"]
__all__ += ["AppointmentStatus", "InspectionKind", "Vistoria", "VistoriaAppointment",
            "VistoriaPlace", "VistoriaReminder", "VistoriaResult", "VistoriaSettings"]
