# nothing
