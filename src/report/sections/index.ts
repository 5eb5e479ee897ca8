import type { Style } from '../ansi.js';
import type { Report, ReportContext } from '../types.js';
import { appliedSection } from './applied.js';
import { driftSection } from './drift.js';
import { fleetDeletedSection } from './fleet-deleted.js';
import { fleetDriftSection } from './fleet-drift.js';
import { planSection } from './plan.js';
import { publicationsSection } from './publications.js';
import { rolloutsSection } from './rollouts.js';

/**
 * A block of the human report for one command's own part of the report (a plan, the apply
 * steps, a drift diff). It returns '' when the report has nothing for it. Sections are printed
 * after the diagnostics and before the summary line, in the order of `humanSections`.
 */
export type HumanSection = (report: Report, ctx: ReportContext, style: Style) => string;

/** The sections the `human` format prints. Stages that add a block to `Report` add its renderer here. */
export const humanSections: readonly HumanSection[] = [publicationsSection, planSection, appliedSection, rolloutsSection, fleetDeletedSection, driftSection, fleetDriftSection];
