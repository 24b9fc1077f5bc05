import { calmSuite } from "@/server/acceptance/calm";

calmSuite("cloudwatch", { discovered: true });
