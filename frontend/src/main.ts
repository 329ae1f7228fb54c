import { createTransport } from "@/api/select";
import { boot } from "./boot";

// The transport is created first: it installs `window.__cashcode.dispatch` for the desktop pusher.
boot(createTransport());
