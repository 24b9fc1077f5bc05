import { calmSuite } from "@/server/acceptance/calm";

calmSuite("upstream");
