/**
 * Test helper: a temporary folder removed with `await using`, whatever the test does.
 *
 * @module
 */

/** A temporary folder; disposing of it removes it and everything in it. */
export interface TempDir extends AsyncDisposable {
  /** The folder's absolute path. */
  readonly path: string;
}

/** Makes a temporary folder named `prefix` and some random characters. */
export async function tempDir(prefix = "aim-test-"): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    },
  };
}
