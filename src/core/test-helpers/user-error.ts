/** Catching the user error a call should raise, for tests that check its message, field and hint. */
import { HeadroomUserError } from '../errors.js';

/** The HeadroomUserError `run` throws; anything else thrown goes on, and nothing thrown fails the test. */
export function userErrorOf(run: () => unknown): HeadroomUserError {
  try {
    run();
  } catch (error) {
    if (error instanceof HeadroomUserError) return error;
    throw error;
  }
  throw new Error('expected a HeadroomUserError');
}

/** userErrorOf for a call that returns a promise. */
export async function asyncUserErrorOf(run: () => Promise<unknown>): Promise<HeadroomUserError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof HeadroomUserError) return error;
    throw error;
  }
  throw new Error('expected a HeadroomUserError');
}
