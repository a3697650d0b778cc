"""Users, their one role and one town, and server-side sessions."""
from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String, func
from sqlalchemy import false as sa_false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from inspector.extensions import db
from inspector.models.registry import Municipality, _enum


class Role(str, enum.Enum):
    AGENT = "agent"
    SUPERVISOR = "supervisor"
    ADMIN = "admin"

    @property
    def label(self) -> str:
        return {"agent": "Agente de fiscalização", "supervisor": "Supervisor(a)",
                "admin": "Administrador(a)"}[self.value]


class User(db.Model):
    """A person who signs in: an agent, a supervisor or an admin of one town."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    municipality_id: Mapped[int] = mapped_column(ForeignKey("municipalities.id"), index=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    role: Mapped[Role] = mapped_column(_enum(Role))
    badge_number: Mapped[str] = mapped_column(String(30), default="")  # agent ID (Tapurah Art. 26)
    password_hash: Mapped[str] = mapped_column(String(200))
    active: Mapped[bool] = mapped_column(default=True)
    # set for an account an admin or `users create` made: its first sign-in leads to the
    # password page and nothing else is served until the holder chose their own password
    must_change_password: Mapped[bool] = mapped_column(default=False, server_default=sa_false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    municipality: Mapped[Municipality] = relationship()
    sessions: Mapped[list[UserSession]] = relationship(back_populates="user",
                                                       cascade="all, delete-orphan")


class UserSession(db.Model):
    """A signed-in browser. Deleting the row ends the session at once."""

    __tablename__ = "user_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    user_agent: Mapped[str] = mapped_column(String(200), default="")

    user: Mapped[User] = relationship(back_populates="sessions")
