-- Provisioning for the app account: a login role without superuser, and schema `lab`
-- owned by it in database `lab`. Idempotent: compose runs it once on an empty volume,
-- the local backend runs it on every `mqlab up`.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'app') THEN
    CREATE ROLE app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;
  END IF;
END
$$;
ALTER ROLE app WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD 'app-lab-only';
CREATE SCHEMA IF NOT EXISTS lab AUTHORIZATION app;
ALTER SCHEMA lab OWNER TO app;
ALTER ROLE app IN DATABASE lab SET search_path = lab;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE lab TO app;
