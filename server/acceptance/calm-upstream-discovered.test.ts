import { calmSuite } from "@/server/acceptance/calm";

calmSuite("upstream", { discovered: true });
