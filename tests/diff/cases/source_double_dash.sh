echo "echo sourced \$1" > s.sh; source -- s.sh; . -- s.sh
