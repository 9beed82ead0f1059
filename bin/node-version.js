// The Node.js lines Clarion runs on, checked before anything else loads, so that an older Node stops with one line
// saying what to install instead of a syntax error or a native crash from deep inside a dependency. package.json's
// `engines` states the same range; tests/cli/node-version.test.ts keeps the two in step.
export const MINIMUM_NODE = '20.19.0';

/** The message for a Node older than MINIMUM_NODE, or null when `version` (e.g. "20.19.0") is supported. */
export function unsupportedNodeMessage(version) {
  const [major, minor] = version.split('.').map(Number);
  const [minMajor, minMinor] = MINIMUM_NODE.split('.').map(Number);
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return null;
  return `clarion: Node.js ${version} is not supported; install Node.js 24 LTS (or 22 LTS, or at least ${MINIMUM_NODE}) from https://nodejs.org/ and run \`npm ci\` again`;
}
