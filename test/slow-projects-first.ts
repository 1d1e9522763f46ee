import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The order test files start in. With durations from an earlier run (vitest keeps them in its cache) vitest's own order
 * stands: failed first, then longest first. Without them (a clean clone, CI) vitest runs the largest files first, which
 * puts the end-to-end files — the longest by far (a newcomer's whole run, the benchmark, deploy scripts) but short in
 * lines — at the end of the run, where two workers cannot overlap them with anything. So, when any duration is
 * unknown: the e2e project first, then the worker project, then plain Node, each in vitest's order.
 */
const PROJECT_ORDER = ["e2e", "worker", "node"];

export default class SlowProjectsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const timed = (file: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(root, file.moduleId)}`) !== undefined;
    if (sorted.every(timed)) return sorted;
    const rank = (file: TestSpecification) => {
      const index = PROJECT_ORDER.indexOf(file.project.name);
      return index === -1 ? PROJECT_ORDER.length : index;
    };
    // Array.prototype.sort is stable: within a project, vitest's order is kept.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
