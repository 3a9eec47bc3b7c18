"""Request and answer models of the staff account routes (storefront/api/admin/staff.py)."""

from __future__ import annotations

from pydantic import Field

from storefront.api.schemas import Email, Text, _example, _Open


class StaffAccountBody(_Open):
    id: int
    username: str
    email: str
    role: str = Field(description="owner, staff or fulfilment")
    roleLabel: str
    status: str = Field(description="active, invited or disabled")
    twoFactor: bool


class StaffList(_Open):
    data: list[StaffAccountBody]


class InviteRequest(_Open):
    model_config = _example({"email": "sam@example.com", "username": "sam", "role": "staff"})

    email: Email = Field(None, description="Where the invitation goes")
    username: Text = Field(None, description="2 to 100 letters, digits, dots, dashes or underscores")
    role: Text = Field(None, description="staff or fulfilment")


class InviteAnswer(_Open):
    account: StaffAccountBody
    link: str = Field(description="The single-use link emailed to the person (valid 7 days)")


class AccountAnswer(_Open):
    account: StaffAccountBody


class ChangePasswordRequest(_Open):
    model_config = _example({"current": "correct horse battery", "new": "a new long passphrase"})

    current: Text = None
    new: Text = Field(None, description="At least 10 characters, not one of the most common passwords")


class SetPasswordRequest(_Open):
    model_config = _example({"token": "1.abc.1767225600.sig", "password": "a new long passphrase"})

    token: Text = Field(None, description="The token of the invitation or reset link")
    password: Text = None


class ResetRequest(_Open):
    model_config = _example({"username": "sam@example.com"})

    username: Text = Field(None, description="The username or email of the account")


class MessageAnswer(_Open):
    success: bool
    message: str


class TwoFactorStatus(_Open):
    enabled: bool
    recoveryCodesLeft: int
    required: bool = Field(description="The owner asks everyone to use it")
    due: bool = Field(description="Not on yet, and asked for (by the owner, or for the owner in production)")


class Enrolment(_Open):
    secret: str = Field(description="The base32 secret, for typing into an app")
    uri: str = Field(description="The otpauth:// address the QR code holds")
    qr: str = Field(description="The QR code as an SVG data URI")


class CodeRequest(_Open):
    model_config = _example({"code": "123456"})

    code: Text = None


class RecoveryCodes(_Open):
    recoveryCodes: list[str] = Field(description="Ten single-use codes, shown this once")


class PolicyRequest(_Open):
    model_config = _example({"required": True})

    required: bool = False
