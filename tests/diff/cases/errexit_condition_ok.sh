set -e; if false; then :; fi; false || true; ! true; echo survived
