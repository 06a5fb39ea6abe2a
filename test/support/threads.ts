/** Node flags that make a worker thread fail as it starts, for the paths that handle a thread that cannot start. */
export const THREAD_THAT_CANNOT_START = ['--import', 'data:text/javascript,throw new Error("this thread cannot start")'];
