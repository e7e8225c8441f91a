from medeval.cli import main

main()
