[[ hello =~ ell ]] && echo inside; [[ hello =~ ^ell ]] || echo anchored
