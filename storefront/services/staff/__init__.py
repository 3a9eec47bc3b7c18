"""Staff: the back office's people. Accounts and Argon2id passwords (`accounts.py`,
`passwords.py`), roles and what each may do (`roles.py`), two-factor sign-in (`two_factor.py`)
and the activity log (`activity.py`). The owner comes from the settings; others are invited by
a single-use signed link.

May use: platform, mail.
"""
