/**
 * How `--help` lays out options: commander pads every option to the widest one and wraps the
 * descriptions to the terminal's width (80 when not a terminal), but gives up wrapping when that
 * leaves the descriptions under 40 columns, so one long option (sync's and hub's
 * `--version-attribute <table=attribute>`) printed every description of the command on one line
 * hundreds of columns wide. Here the option column is capped to leave 40 columns, and an option
 * wider than the cap stands on a line of its own with its description below, in the column:
 *
 *   --version-attribute <table=attribute>
 *                                       optimistic concurrency on a table: ...
 */
import { Help, type Command } from 'commander';

/** The narrowest description column commander still wraps (its Help.minWidthToWrap). */
const MIN_DESCRIPTION_WIDTH = 40;
/** The item indent and the gap between term and description, as commander's formatItem has them. */
const INDENT_AND_GAP = 4;
/** The option column never shrinks below this, however narrow the terminal. */
const MIN_TERM_WIDTH = 12;

export function configureHelpLayout(program: Command): Command {
  return program.configureHelp({
    padWidth(cmd: Command, helper: Help): number {
      const widest = Help.prototype.padWidth.call(this, cmd, helper);
      const helpWidth = (this as Help).helpWidth ?? 80;
      return Math.min(widest, Math.max(MIN_TERM_WIDTH, helpWidth - INDENT_AND_GAP - MIN_DESCRIPTION_WIDTH));
    },
    formatItem(term: string, termWidth: number, description: string, helper: Help): string {
      const format = Help.prototype.formatItem;
      if (!description || helper.displayWidth(term) <= termWidth) return format.call(this, term, termWidth, description, helper);
      return `${format.call(this, term, termWidth, '', helper)}\n${format.call(this, '', termWidth, description, helper)}`;
    },
  });
}
