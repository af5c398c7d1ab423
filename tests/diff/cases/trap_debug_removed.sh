trap "echo d" DEBUG; echo one; trap - DEBUG; echo two
