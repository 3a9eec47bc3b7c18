"""The most common passwords long enough to pass the length rule (lower-cased): a new password
may not be one of them. From the public breach top lists (the shorter entries are refused by length already)."""

COMMON_PASSWORDS: frozenset[str] = frozenset({
    "0000000000", "0123456789", "0987654321", "1111111111", "1122334455", "11223344556", "123123123123",
    "1234567890", "1234567891", "12345678910", "123456789a", "123456789q", "12345qwert", "1234abcd1234",
    "1234qwerasdf", "1q2w3e4r5t", "1q2w3e4r5t6y", "1qaz2wsx3edc", "987654321a", "a1b2c3d4e5", "abc1234567",
    "abcd123456", "abcdefg123", "abcdefghij", "admin12345", "admin123456", "administrator", "administrator1",
    "arsenal123", "asdf123456", "asdfghjkl1", "autumn2026", "baseball123", "batman12345", "changeme12",
    "changeme123", "charlie123", "chelsea123", "computer123", "correcthorsebatterystaple", "dragon12345",
    "football123", "freedom123", "iloveyou12", "iloveyou123", "internet123", "january2026", "jordan2323",
    "letmein123", "letmeinplease", "liverpool123", "master1234", "michael123", "monkey12345", "mypassword",
    "mypassword1", "myshop12345", "myspace123", "nopassword", "p@ssw0rd123", "p@ssword123", "passw0rd123",
    "password12", "password123", "password1234", "password12345", "password2024", "password2025",
    "password2026", "passwordpassword", "pokemon123", "princess123", "qazwsxedcrfv", "qwerasdfzxcv",
    "qwert12345", "qwerty12345", "qwerty123456", "qwertyuiop", "samsung123", "secret1234", "shadow1234",
    "shopadmin123", "spring2026", "starwars123", "storefront1", "storefront123", "summer2024", "summer2025",
    "summer2026", "sunshine123", "superman123", "thisisapassword", "trustno1234", "welcome123", "welcome1234",
    "welcome2026", "whatever123", "winter2025", "winter2026", "zaq12wsxcde3", "zxcvbnm123",
})
