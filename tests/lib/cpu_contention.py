"""Reading a phase's cpu.json (tests/lib/cpu_share.sh cpu_record) for the emulated checks.

A timing bound missed while other work took more than CONTENDED of the machine's CPU is not
judged (the ranks' compute and the emulated links' kernel work then ran on fewer CPUs than the
modelled cluster has): the check prints CONTENDED with the share instead of FAIL, and exits 77
(skipped, not passed) when every miss is of that kind. A miss on a quiet machine fails."""
import json

CONTENDED = 0.15


def contention(path):
    """Other work's share of the machine's CPU during the phase (0 when not recorded), and a
    line saying so."""
    try:
        with open(path) as f:
            c = json.load(f)
    except OSError:
        return 0.0, "CPU: not recorded"
    return c["other_share"], (
        f"CPU: {c['wall_s']:.0f} s on {c['cpus']} CPUs; the ranks used {c['ours_cpu_s']:.0f} "
        f"CPU s, other work {c['other_cpu_s']:.0f} CPU s ({100 * c['other_share']:.0f} % of "
        f"the machine; contended above {100 * CONTENDED:.0f} %)")


def verdict(good, contended):
    """PASS, FAIL, or CONTENDED for a timing bound missed while other work took the CPUs."""
    return "PASS" if good else ("CONTENDED" if contended else "FAIL")
