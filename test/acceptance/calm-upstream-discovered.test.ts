import { calmSuite } from "@/test/acceptance/calm";

calmSuite("upstream", { discovered: true });
