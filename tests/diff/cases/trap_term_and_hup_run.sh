trap "echo term" TERM; trap "echo hup" HUP; kill -HUP $$; kill -TERM $$; echo after
