"""Just enough TAP for the Python tests run by prove."""
import sys

_count = 0
_failed = 0


def ok(cond, name, diag=None):
    global _count, _failed
    _count += 1
    print(f"{'ok' if cond else 'not ok'} {_count} - {name}")
    if not cond:
        _failed += 1
        if diag:
            for line in str(diag).splitlines():
                print(f"#   {line}")
    sys.stdout.flush()
    return cond


def skip(name, reason):
    global _count
    _count += 1
    print(f"ok {_count} - {name} # SKIP {reason}")


def skip_all(reason):
    print(f"1..0 # SKIP {reason}")
    sys.exit(0)


def done():
    print(f"1..{_count}")
    sys.exit(1 if _failed else 0)
