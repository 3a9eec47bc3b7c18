"""The back office's people: accounts and their passwords, roles, invitation and reset links,
two-factor sign-in and the activity log. Uses mail (invitations) and platform; never orders or
catalog (they call the activity log, not the other way round)."""
