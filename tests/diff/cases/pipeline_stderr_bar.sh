{ echo e >&2; } |& cat
