-- key scopes: run keys screen, write keys may also push bars (POST /xql/bars)
ALTER TABLE api_keys ADD COLUMN scope text NOT NULL DEFAULT 'run' CHECK (scope IN ('run', 'write'));
