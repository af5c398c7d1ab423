mkdir real; ln -s real link 2>/dev/null || true; cd real; pwd -P | tr / "\n" | tail -1
