/**
 * Runs before each unit and integration test file (jest.config.js `setupFiles`). The package's
 * transport policy module is replaced by one whose PRODUCTION_POLICY is the test file's current
 * policy (test/support/transportPolicy.ts), so tests can shorten retry pauses and timeouts while
 * the shipped module has no way to change them.
 */
jest.mock('../../nodes/ClinicScribe/transport/retryPolicy', () => {
	const shipped = jest.requireActual('../../nodes/ClinicScribe/transport/retryPolicy');
	const { currentTestTransportPolicy } = jest.requireActual('./transportPolicy');
	return {
		...shipped,
		get PRODUCTION_POLICY() {
			return currentTestTransportPolicy();
		},
	};
});
