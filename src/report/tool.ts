/**
 * How sessionctl names itself in machine-readable reports. The URIs are set in this one place;
 * they point at the project page and its rules documentation (`docs/rules.md`).
 */
export const toolName = 'sessionctl';
export const informationUri = 'https://www.npmjs.com/package/sessionctl';
export const rulesDocUri = 'https://github.com/sessionctl/sessionctl/blob/main/docs/rules.md';
