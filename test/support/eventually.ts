/** Polls until `check` passes, every 50 ms for at most 100 tries: the bound keeps a broken watcher from hanging the suite. */
export async function eventually(check: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await check();
    } catch (error) {
      if (attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
