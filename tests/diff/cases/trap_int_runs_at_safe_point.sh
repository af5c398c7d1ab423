trap "echo int" INT; kill -INT $$; echo after
