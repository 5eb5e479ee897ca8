/**
 * How sessionctl names itself in machine-readable reports. The package has no public home page
 * yet, so reports link to nothing they cannot vouch for: rules point at their section of the
 * rules reference that ships with the package (`docs/rules.md`, generated from the catalogue).
 */
export const toolName = 'sessionctl';
export const rulesDocPath = 'docs/rules.md';
