touch g1; set -f; echo g*; set +f; echo g*
