"""The connection to the engine: the DP frame codec (frames) and the socket with its
writer lock and reader loop (connection). docs/ipc.md describes the conversation."""
