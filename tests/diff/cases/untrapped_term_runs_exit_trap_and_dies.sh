trap "echo bye" EXIT; kill -TERM $$; echo never
