import { calmSuite } from "@/test/acceptance/calm";

calmSuite("cloudwatch", { discovered: true });
