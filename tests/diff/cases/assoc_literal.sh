declare -A m=([host]=localhost [port]=3000)
echo "${m[host]}:${m[port]}"
