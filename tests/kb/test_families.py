"""Code families: a coded error no entry knows is placed on the official page for its exact code.

Every family is tried on a line shaped as the tool prints it; the address asserted is the one a reader
must land on. The decisive line is the one that raised the error: never a warning, never a line that
only reports an earlier failure or sums errors up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.errors import SeedError
from bot.kb.families import FILE, Families, load, validate
from bot.kb.normalize import normalize
from tests.conftest import SEEDS

MS = "https://learn.microsoft.com/en-us"
MYSQL = "https://dev.mysql.com/doc/mysql-errors/8.0/en"
PG = "https://www.postgresql.org/docs/current/errcodes-appendix.html"
ERRNO = "https://man7.org/linux/man-pages/man3/errno.3.html"
TS_LIST = "https://github.com/microsoft/TypeScript/blob/main/src/compiler/diagnosticMessages.json"

# (paste as printed, family, code, address, kind of page)
CASES = [
    ("error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let x: i32 = \"a\";\n"
     "error: aborting due to 1 previous error\n\nFor more information about this error, try `rustc --explain E0308`.\n"
     "error: could not compile `demo` (bin \"demo\") due to 1 previous error",
     "rustc", "E0308", "https://doc.rust-lang.org/error_codes/E0308.html", "code"),
    ("src/App.tsx:12:6 - error TS2786: 'Header' cannot be used as a JSX component.\n\nFound 1 error in src/App.tsx:12",
     "typescript", "TS2786", TS_LIST, "index"),
    ("src/App.tsx(12,6): error TS2786: 'Header' cannot be used as a JSX component.", "typescript", "TS2786", TS_LIST,
     "index"),
    ("TS2786: 'Header' cannot be used as a JSX component.\n  Its return type 'ReactNode' is not a valid JSX element.",
     "typescript", "TS2786", TS_LIST, "index"),
    ("C:\\Program Files\\dotnet\\sdk\\8.0.100\\Sdks\\Microsoft.NET.Sdk\\targets\\Microsoft.NET.TargetFrameworkInference"
     ".targets(166,5): error NETSDK1045: The current .NET SDK does not support targeting .NET 9.0. [C:\\src\\App.csproj]",
     "netsdk", "NETSDK1045", MS + "/dotnet/core/tools/sdk-errors/netsdk1045", "code"),
    ("C:\\src\\App.csproj : error NETSDK1209: The current Visual Studio version does not support targeting .NET 9.0.",
     "netsdk", "NETSDK1209", MS + "/dotnet/core/tools/sdk-errors/", "index"),
    ("Program.cs(3,7): error CS0246: The type or namespace name 'Newtonsoft' could not be found (are you missing a using "
     "directive or an assembly reference?) [C:\\src\\App.csproj]",
     "csharp", "CS0246", "https://msdn.microsoft.com/query/roslyn.query?appId=roslyn&k=k(CS0246)", "code"),
    ("Error\tCS0103\tThe name 'foo' does not exist in the current context\tApp\tC:\\src\\Program.cs\t9\tActive",
     "csharp", "CS0103", "https://msdn.microsoft.com/query/roslyn.query?appId=roslyn&k=k(CS0103)", "code"),
    ("C:\\Program Files\\Microsoft Visual Studio\\2022\\MSBuild\\Microsoft\\VC\\v170\\Microsoft.CppCommon.targets(166,5): "
     "error MSB3073: The command \"copy /y a.dll out\\\" exited with code 1.",
     "msbuild", "MSB3073", MS + "/visualstudio/msbuild/errors/msb3073", "code"),
    ("  Determining projects to restore...\nC:\\src\\App.csproj : error NU1101: Unable to find package Acme.Core. No "
     "packages exist with this id in source(s): nuget.org", "nuget", "NU1101",
     MS + "/nuget/reference/errors-and-warnings/nu1101", "code"),
    ("C:\\src\\App.csproj : error NU1903: Package 'System.Text.Json' 8.0.0 has a known high severity vulnerability",
     "nuget", "NU1903", MS + "/nuget/reference/errors-and-warnings/nu1901-nu1904", "code"),
    ("Prisma schema loaded from prisma/schema.prisma\nDatasource \"db\": PostgreSQL database \"app\" at \"db:5432\"\n\n"
     "Error: P1001: Can't reach database server at `db`:`5432`",
     "prisma", "P1001", "https://www.prisma.io/docs/orm/reference/error-reference#p1001", "code"),
    ("ERROR 1698 (28000): Access denied for user 'root'@'localhost'", "mysql", "1698",
     MYSQL + "/server-error-reference.html#error_er_access_denied_no_password_error", "code"),
    ("PDOException: SQLSTATE[HY000] [2002] Connection refused", "mysql", "2002",
     MYSQL + "/client-error-reference.html#error_cr_connection_error", "code"),
    ("ERROR 3948 (42000): Loading local data is disabled", "mysql", "3948", MYSQL + "/server-error-reference.html",
     "list"),
    ("Illuminate\\Database\\QueryException: SQLSTATE[23000]: Integrity constraint violation: 1062 Duplicate entry "
     "'a@b.c' for key 'users_email_unique'", "mysql", "1062", MYSQL + "/server-error-reference.html#error_er_dup_entry",
     "code"),
    ("ERROR: duplicate key value violates unique constraint \"users_email_key\" (SQLSTATE 23505)", "sqlstate", "23505",
     PG, "list"),
    ("SQLSTATE[42P01]: Undefined table: 7 ERROR:  relation \"users\" does not exist", "sqlstate", "42P01", PG, "list"),
    ("pq: SQLSTATE 40P01: deadlock detected\nERROR: could not serialize access (SQLSTATE 40P01)", "sqlstate", "40P01",
     PG, "list"),
    ("org.postgresql.util.PSQLException: ERROR: value too long for type character varying(20)\n"
     "  sqlstate: 22001", "sqlstate", "22001", PG, "list"),
    ("** (Postgrex.Error) ERROR 23505 (unique_violation) duplicate key value violates unique constraint \"u\"",
     "sqlstate", "23505", PG, "list"),
    ("PrismaClientKnownRequestError: \nInvalid `prisma.user.create()` invocation:\n\n\n"
     "Unique constraint failed on the fields: (`email`)\n    at Rn.handleRequestError (/app/node_modules/@prisma/client/"
     "runtime/library.js:121:7749) {\n  code: 'P2002',\n  clientVersion: '5.22.0',", "prisma", "P2002",
     "https://www.prisma.io/docs/orm/reference/error-reference#p2002", "code"),
    ("PermissionError: [WinError 5] Access is denied: 'C:\\\\Users\\\\me\\\\AppData\\\\Local\\\\Temp\\\\x'", "windows",
     "5", MS + "/windows/win32/debug/system-error-codes--0-499-", "list"),
    ("Error: Install failed with error 0x80070005 (Access is denied.)", "windows", "5",
     MS + "/windows/win32/debug/system-error-codes--0-499-", "list"),
    ("System error 1326 has occurred.\n\nThe user name or password is incorrect.", "windows", "1326",
     MS + "/windows/win32/debug/system-error-codes--1300-1699-", "list"),
    ("System.Runtime.InteropServices.COMException (0x800704C7): The operation was canceled by the user.", "windows",
     "1223", MS + "/windows/win32/debug/system-error-codes--1000-1299-", "list"),
    ("Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1595:16)",
     "errno", "ECONNREFUSED", ERRNO, "list"),
    ("npm ERR! code EACCES\nnpm ERR! syscall mkdir\nnpm ERR! path /usr/local/lib/node_modules", "errno", "EACCES",
     ERRNO, "list"),
]


@pytest.fixture(scope="module")
def families() -> Families:
    return load(SEEDS)


@pytest.mark.parametrize(("paste", "family", "code", "url", "page"), CASES, ids=[c[2] for c in CASES])
def test_a_coded_error_points_at_the_official_page_for_its_exact_code(families, paste, family, code, url, page):
    hit = families.find(normalize(paste).text)
    assert hit is not None, paste
    assert (hit.family.id, hit.code, hit.url, hit.page) == (family, code, url, page)


@pytest.mark.parametrize("paste", [
    "warning CS0618: 'WebClient' is obsolete",  # a warning is never answered
    "Program.cs(3,7): warning CS8618: Non-nullable property 'Name' must contain a non-null value",
    "Warning\tNU1603\tApp depends on Acme (>= 1.0.0) but Acme 1.0.0 was not found",
    "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",  # npm's own codes have no page each
    "Error: something went wrong (SQLSTATE HY000)",  # not a PostgreSQL code
    "ERROR 1234 is what the docs call it",  # a number without MySQL's (SQLSTATE)
    "C:\\x.targets(5,5): error MSB9999: made up",  # MSBuild documents no such code: no page, no answer
    "  code: 'P2002',\n  clientVersion: '5.1.0'",  # a Prisma-like code without Prisma
    "we talked about ECONNREFUSED and error[E0308] in the retro",  # chat: no error line
])
def test_nothing_is_claimed_without_a_page_for_an_error_line(families, paste):
    assert families.find(normalize(paste).text) is None


def test_the_raised_error_decides_not_an_earlier_coded_one(families):
    paste = ("Error: connect ECONNREFUSED 127.0.0.1:6379\nretrying...\nTypeError: Cannot read properties of undefined "
             "(reading 'map')")
    assert families.find(paste) is None  # the last error line carries no code: no family answer


def test_a_report_of_an_earlier_failure_is_skipped_for_the_error_it_reports(families):
    paste = ("C:\\src\\App.csproj : error NU1101: Unable to find package Acme.Core.\n"
             "##[error]Process completed with exit code 1.")
    hit = families.find(paste)
    assert hit is not None and hit.code == "NU1101"


def test_the_quoted_line_is_the_decisive_line_as_pasted(families):
    paste = "2026-12-04T10:00:00Z ERROR 1045 (28000): Access denied for user 'app'@'10.0.0.5' (using password: YES)"
    hit = families.find(paste)
    assert hit is not None and hit.code == "1045" and hit.line == paste


def test_every_family_of_the_kb_is_valid_and_bilingual(families):
    assert validate(SEEDS) == []
    assert {f.id for f in families.families} >= {"rustc", "typescript", "netsdk", "csharp", "msbuild", "nuget",
                                                  "prisma", "sqlstate", "mysql", "windows", "errno"}
    for family in families.families:
        assert family.label_zh and family.about_zh and family.about_zh != family.about


def _write(tmp_path: Path, data: object) -> Path:
    (tmp_path / FILE).write_text(json.dumps(data), encoding="utf-8")
    return tmp_path


def test_a_broken_family_is_named_by_file_field_and_problem(tmp_path):
    good = json.loads((SEEDS / FILE).read_text(encoding="utf-8"))["families"][0]
    broken = {**good, "url": "http://example.com/{code}", "patterns": [{"regex": "error\\[(E\\d{4})\\]",
                                                                         "announces": True}]}
    problems = [str(p) for p in validate(_write(tmp_path, {"families": [good, broken, {**good}]}))]
    file = str(tmp_path / FILE)
    assert f"{file}: families[1].url: must be an https:// address" in problems
    assert f"{file}: families[1].patterns[0].regex: must capture the code as (?P<code>…) or (?P<hresult>…)" in problems
    assert f"{file}: families[2].id: 'rustc' is used twice" in problems
    with pytest.raises(SeedError):
        load(tmp_path)


def test_a_seeds_folder_without_families_has_none(tmp_path):
    assert len(load(tmp_path)) == 0 and validate(tmp_path) == []
