printf "%c %% %s\n" hello world
