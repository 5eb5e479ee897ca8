/**
 * The manifest folder the starter's `paths` names: the layout the README and docs use (`sessions/`),
 * so that a project begun with `init --config` reads as the docs' examples do.
 */
export const STARTER_FOLDER = 'sessions';

/**
 * The commented starter that `sessionctl init --config` writes: every setting shown, a few on,
 * and it validates clean (a test loads it). `schemaRef` is the modeline's target, so that editors
 * complete and check the file.
 */
export function starterProjectConfig(schemaRef: string): string {
  return `# yaml-language-server: $schema=${schemaRef}
# sessionctl project configuration. sessionctl finds this file from the working directory
# upwards (up to the repository root), or takes --config FILE. Paths and globs are relative to
# this file's folder; command-line flags and environment variables win over every setting.

# The manifests to check when a command is given no paths.
paths: [${STARTER_FOLDER}/]

# Defaults for the commands (uncomment to use).
# formats: [human, sarif=reports/sessionctl.sarif]   # as --format takes them
# env_files: [.env.ci]                               # for \${VAR} in manifests; the environment wins
# state: .sessionctl/state.json                      # or postgres://user@host:5432/db (password from PGPASSWORD)
# base_url: https://backend.composio.dev             # never a key: that comes from COMPOSIO_API_KEY
# api_version: "3"
# catalog: catalog.json                              # instead of the bundled toolkit catalogue

# Files no command looks at.
ignore: ["**/drafts/**"]

# Severity per code, per group (catalog/*) or per policy: off, info, warning or error.
rules:
  rule/empty-allowlist: error
  # catalog/*: error        # once the bundled catalogue matches the service you use

# Severities for some files only; a later entry wins over an earlier one.
overrides:
  - files: ["sandbox/**"]
    rules:
      policy/no-destructive-tools: warning

# The organisation's own rules; findings are reported as policy/<id>. See docs/policies.md.
policies:
  - id: no-destructive-tools
    message: Sessions never opt in to destructive tools
    forbidden_tags:
      enable: [destructiveHint]
  # - id: finance-toolkits
  #   message: Finance sessions use only the finance toolkits
  #   files: ["teams/finance/**"]
  #   allowed_toolkits: [quickbooks, stripe, gmail]

# Environment variables whose values are secrets, kept out of everything sessionctl prints.
# sensitive: [SUPPORT_USER_ID]
`;
}
