// Longest test files first, so that no worker is left running one alone at the end. Jest orders
// files it has timed by their last duration; on a fresh clone it has none and orders by file size,
// which put the differential suites (4-line files, 100–200 s each) last. Here untimed files go:
// the differential suites, then the files that start the product or a node (e2e, integration),
// then the rest, each group by file size.
const Sequencer = require('@jest/test-sequencer').default;

const rank = (path) => (/differential-[a-z]+\.spec\.ts$/.test(path) ? 0 : /[\\/](test[\\/](e2e|integration)|src[\\/]test)[\\/]/.test(path) ? 1 : 2);

class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const untimed = sorted.filter((t) => t.duration == null);
    const timed = sorted.filter((t) => t.duration != null);
    // Array.prototype.sort is stable: within a rank, the default order (file size) stays.
    return [...untimed.sort((a, b) => rank(a.path) - rank(b.path)), ...timed];
  }
}

module.exports = LongestFirst;
