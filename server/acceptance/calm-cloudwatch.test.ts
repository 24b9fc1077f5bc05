import { calmSuite } from "@/server/acceptance/calm";

calmSuite("cloudwatch");
